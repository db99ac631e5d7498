import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import { QueueService } from '@/common/queue/queue.service';
import { DELIVERY_ATTEMPTS, deliveryJobOptions } from './webhook-jobs';

/** How long a delivery may look stuck before the sweep checks its job. */
const OVERDUE = "interval '2 minutes'";
const LIVE_STATES = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/**
 * `sweep-webhook-deliveries` (periodic): Postgres is the truth, Redis only schedules. A delivery
 * still `pending`, or `failed` past its `nextAttemptAt`, whose job is gone (Redis flushed or
 * evicted) gets a job again, with the attempts it has left.
 */
@Injectable()
export class WebhookSweepProcessor {
  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueService,
  ) {}

  @JobHandler('sweep-webhook-deliveries')
  onSweepWebhookDeliveries(): Promise<unknown> {
    return this.sweep();
  }

  /** Returns the number of deliveries re-queued. */
  async sweep(limit = 500): Promise<number> {
    const rows = await this.dataSource.query<
      { id: string; workspace_id: string; attempts: number; event_id: string | null }[]
    >(
      `SELECT id, workspace_id, attempts, event_id FROM webhook_deliveries
        WHERE (status = 'pending' AND updated_at < now() - ${OVERDUE})
           OR (status = 'failed' AND next_attempt_at < now() - ${OVERDUE})
        ORDER BY updated_at LIMIT $1`,
      [limit],
    );
    let requeued = 0;
    for (const row of rows) {
      const job = await this.queues.queue('webhooks').getJob(row.id);
      if (job) {
        if (LIVE_STATES.has(await job.getState())) continue;
        await job.remove().catch(() => undefined);
      }
      const left = row.event_id ? Math.max(1, DELIVERY_ATTEMPTS - row.attempts) : 1;
      await this.queues.enqueue(
        'deliver-webhook',
        { deliveryId: row.id, workspaceId: row.workspace_id },
        { ...deliveryJobOptions(row.id), attempts: left },
      );
      requeued += 1;
    }
    return requeued;
  }
}
