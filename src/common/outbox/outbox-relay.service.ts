import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AppConfig } from '../../config/config';
import { QueueService } from '../queue/queue.service';

/**
 * Moves committed outbox rows to the `events` queue. Rows are claimed with SKIP LOCKED, so
 * several workers never relay the same row; the job id is the event id, so a crash between
 * `add` and the commit only re-adds a job BullMQ already has (a no-op).
 */
@Injectable()
export class OutboxRelayService implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueService,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.queues.handle('relay-outbox', () => this.relayBatch());
    this.queues.every('relay-outbox', this.config.outboxPollMs);
  }

  async relayBatch(limit = 200): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const rows: { id: string }[] = await m.query(
        `SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (rows.length === 0) return 0;
      await this.queues.queue('events').addBulk(
        rows.map((r) => ({ name: 'dispatch-event', data: { eventId: r.id }, opts: { jobId: `evt-${r.id}`, attempts: 10, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: 86400 }, removeOnFail: { age: 7 * 86400 } } })),
      );
      await m.query(`UPDATE events SET dispatched_at = now() WHERE id = ANY($1::uuid[])`, [rows.map((r) => r.id)]);
      return rows.length;
    });
  }
}
