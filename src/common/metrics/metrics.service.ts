import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueService } from '@/common/queue/queue.service';
import { QUEUES } from '@/common/queue/jobs';
import { outboxLag, outboxPending, queueJobs, queueOldestWaiting, registry } from './metrics';

const STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized'] as const;

/** Renders the registry, refreshing the gauges read from Redis and PostgreSQL first. */
@Injectable()
export class MetricsService {
  constructor(
    private readonly queues: QueueService,
    private readonly ds: DataSource,
  ) {}

  get contentType(): string {
    return registry.contentType;
  }

  async render(): Promise<string> {
    await Promise.all([this.readQueues(), this.readOutbox()]);
    return registry.metrics();
  }

  private async readQueues(): Promise<void> {
    const now = Date.now();
    await Promise.all(
      QUEUES.map(async (name) => {
        const queue = this.queues.queue(name);
        const counts = await queue.getJobCounts(...STATES);
        for (const state of STATES) queueJobs.set({ queue: name, state }, counts[state] ?? 0);
        const [oldest] = await queue.getJobs(['waiting'], 0, 0, true);
        queueOldestWaiting.set({ queue: name }, oldest ? Math.max(0, (now - oldest.timestamp) / 1000) : 0);
      }),
    );
  }

  private async readOutbox(): Promise<void> {
    const [row] = await this.ds.query<{ pending: number; lag: number }[]>(
      `SELECT count(*)::int AS pending, COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float AS lag
         FROM events WHERE dispatched_at IS NULL`,
    );
    outboxPending.set(row?.pending ?? 0);
    outboxLag.set(Math.max(0, row?.lag ?? 0));
  }
}
