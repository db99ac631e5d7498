import { Injectable } from '@nestjs/common';
import type { JobsOptions } from 'bullmq';
import { DataSource } from 'typeorm';
import { preparedQuery } from '@/database/plain-query';
import type { JobName, JobPayloads } from '../queue/jobs';
import { QueueService } from '../queue/queue.service';

const JOB_OPTS = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 86400 },
  removeOnFail: { age: 7 * 86400 },
};
/** A relayed event not handled within this long has lost its job (e.g. Redis restarted empty). */
const REDRIVE_AFTER_MS = 60_000;

/**
 * The statement that marks an event handled (`eventId`: its SQL expression), for a handler that
 * writes it as part of its own last statement (a data-modifying CTE) instead of one more round trip.
 */
export function markHandledSql(eventId: string): string {
  return `UPDATE events SET handled_at = now() WHERE id = ${eventId} AND handled_at IS NULL`;
}

/**
 * Moves committed outbox rows to the `events` queue. Rows are claimed with SKIP LOCKED, so
 * several workers never relay the same row; the job id is the event id, so a crash between
 * `add` and the commit only re-adds a job BullMQ already has (a no-op).
 * The handler marks a row `handled_at` when done; rows relayed but still unhandled after a
 * minute are redriven under a fresh job id (handlers are idempotent), so losing Redis between
 * relay and fan-out loses no event.
 */
@Injectable()
export class OutboxRelayService {
  private readonly followUps = new Map<
    string,
    ((event: { id: string; data: Record<string, unknown> }) => Promise<void> | null)[]
  >();

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueService,
  ) {}

  /** Marks an event handled; the `dispatch-event` handler calls it when it is done. */
  async markHandled(eventId: string): Promise<void> {
    await preparedQuery(this.dataSource, markHandledSql('$1'), [eventId]);
  }

  async redriveBatch(limit = 200, olderThanMs = REDRIVE_AFTER_MS): Promise<number> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM events WHERE handled_at IS NULL AND dispatched_at IS NOT NULL AND dispatched_at < now() - $2 * interval '1 millisecond' ORDER BY dispatched_at LIMIT $1`,
      [limit, olderThanMs],
    );
    if (rows.length === 0) return 0;
    // A fresh id per minute: a job that is merely slow stays deduplicated; an exhausted one does not block.
    const round = Math.floor(Date.now() / 60_000);
    await this.queues.queue('events').addBulk(
      rows.map((r) => ({
        name: 'dispatch-event',
        data: { eventId: r.id },
        opts: { jobId: `evt-${r.id}-r${round}`, ...JOB_OPTS },
      })),
    );
    return rows.length;
  }

  /**
   * A job to run after every committed event of `type` (e.g. `account.connected` → the account's
   * analytics backfill). The relay enqueues it with the event's own dispatch, so it is as durable
   * as the change that wrote the event in its transaction; its job id is `<job>-<eventId>` (BullMQ ids take no more colons).
   */
  followEvent<J extends JobName>(
    type: string,
    job: J,
    payloadOf: (data: Record<string, unknown>) => JobPayloads[J] | null,
    opts: JobsOptions = {},
  ): void {
    const list = this.followUps.get(type) ?? [];
    list.push((event) => {
      const payload = payloadOf(event.data);
      return payload && this.queues.enqueue(job, payload, { ...opts, jobId: `${job}-${event.id}` });
    });
    this.followUps.set(type, list);
  }

  async relayBatch(limit = 200): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const followed = [...this.followUps.keys()];
      // The data only of the events something follows.
      const rows: { id: string; type: string; data: Record<string, unknown> | null }[] = await m.query(
        `SELECT id, type, CASE WHEN type = ANY($2::text[]) THEN data END AS data
           FROM events WHERE dispatched_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit, followed],
      );
      if (rows.length === 0) return 0;
      await this.queues.queue('events').addBulk(
        rows.map((r) => ({
          name: 'dispatch-event',
          data: { eventId: r.id },
          opts: { jobId: `evt-${r.id}`, ...JOB_OPTS },
        })),
      );
      for (const r of rows)
        for (const follow of this.followUps.get(r.type) ?? []) await follow({ id: r.id, data: r.data ?? {} });
      await preparedQuery(m, `UPDATE events SET dispatched_at = now() WHERE id = ANY($1::uuid[])`, [
        rows.map((r) => r.id),
      ]);
      return rows.length;
    });
  }
}
