import { createHash } from 'node:crypto';
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
 * The statement that marks events handled (`eventIds`: its SQL expression, a uuid[]), for a
 * handler that writes it as part of its own last statement (a data-modifying CTE) instead of one
 * more round trip.
 */
export function markHandledSql(eventIds: string): string {
  return `UPDATE events SET handled_at = now() WHERE id = ANY(${eventIds}::uuid[]) AND handled_at IS NULL`;
}

/** Events per `dispatch-event` job at most: a relay batch's events fan out together, in one job per this many. */
const EVENTS_PER_JOB = 50;

/** A relayed batch's job id: its events' own when it is one event, else a digest of them (BullMQ ids take no colons). */
function dispatchJobId(eventIds: string[]): string {
  if (eventIds.length === 1) return `evt-${eventIds[0]}`;
  return `evts-${createHash('sha256').update(eventIds.join(',')).digest('base64url')}`;
}

/**
 * Moves committed outbox rows to the `events` queue, up to EVENTS_PER_JOB events per
 * `dispatch-event` job. Rows are claimed with SKIP LOCKED, so several workers never relay the
 * same row; the job id is named by its events, so a crash between `add` and the commit re-adds a
 * job BullMQ already has (a no-op) when the next relay takes the same events, and otherwise fans
 * them out again (handlers are idempotent; receivers may see an event twice, as webhooks allow).
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

  /** Marks events handled; the `dispatch-event` handler calls it when it is done. */
  async markHandled(eventIds: string[]): Promise<void> {
    await preparedQuery(this.dataSource, markHandledSql('$1'), [eventIds]);
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
        data: { eventIds: [r.id] },
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
      const jobs = [];
      for (let i = 0; i < rows.length; i += EVENTS_PER_JOB) {
        const eventIds = rows.slice(i, i + EVENTS_PER_JOB).map((r) => r.id);
        jobs.push({
          name: 'dispatch-event',
          data: { eventIds },
          opts: { jobId: dispatchJobId(eventIds), ...JOB_OPTS },
        });
      }
      await this.queues.queue('events').addBulk(jobs);
      for (const r of rows)
        for (const follow of this.followUps.get(r.type) ?? []) await follow({ id: r.id, data: r.data ?? {} });
      await preparedQuery(m, `UPDATE events SET dispatched_at = now() WHERE id = ANY($1::uuid[])`, [
        rows.map((r) => r.id),
      ]);
      return rows.length;
    });
  }
}
