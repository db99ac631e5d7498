import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OutboxRelayService } from '@/common/outbox/outbox-relay.service';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import { preparedQuery } from '@/database/plain-query';
import type { JobPayloads } from '@/common/queue/jobs';
import { WEBHOOK_EVENT_TYPES, WILDCARD } from '../event-types';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';

/**
 * `dispatch-event`: committed outbox events (a relay batch) → one delivery per matching active
 * subscription each. Safe to run twice: the insert skips (subscription, event) pairs that exist,
 * and every delivery of the events still pending is attempted (or queued under its own id, which
 * BullMQ deduplicates).
 */
@Injectable()
export class WebhookFanoutProcessor {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: OutboxRelayService,
    private readonly deliveries: WebhookDeliveryProcessor,
  ) {}

  @JobHandler('dispatch-event')
  async onDispatchEvent(data: JobPayloads['dispatch-event']): Promise<unknown> {
    // A job queued before relay batches carries one eventId.
    const eventIds = 'eventIds' in data ? data.eventIds : [data.eventId];
    const { queued, handled } = await this.deliver(eventIds, true);
    if (!handled) await this.relay.markHandled(eventIds);
    return queued;
  }

  /** Returns the number of deliveries attempted or queued. */
  async fanOut(eventId: string): Promise<number> {
    return (await this.deliver([eventId], false)).queued;
  }

  /**
   * fanOut of several events; with `markHandled`, the first attempts may mark the events handled
   * with their outcomes (`handled`: they did, in the same statement, once nothing is left to queue).
   */
  private async deliver(eventIds: string[], markHandled: boolean): Promise<{ queued: number; handled: boolean }> {
    // One round trip: the events (read here, their time to the millisecond as the envelope carries
    // it; audit-only types such as api_key.created or webhook.updated, and events without a
    // profile, are never delivered: nothing matches), their new deliveries, and those of an earlier
    // run still pending (the statement's snapshot does not see its own inserts, so the two sets do
    // not overlap). Paused (inactive) subscriptions do not match: events while paused are dropped,
    // not queued. A subscription created after the event does not receive it either.
    const { rows: pending } = await preparedQuery<{ id: string; workspace_id: string }>(
      this.dataSource,
      `WITH e AS (
         SELECT id, workspace_id, profile_id, type, data, date_trunc('milliseconds', created_at) AS created_at FROM events
          WHERE id = ANY($1::uuid[]) AND profile_id IS NOT NULL AND type = ANY($2::text[])),
       ins AS (
         INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, type, payload, event_created_at, status)
         SELECT gen_random_uuid(), s.workspace_id, s.id, e.id, e.type, e.data, e.created_at, 'pending'
           FROM e JOIN webhook_subscriptions s
             ON s.workspace_id = e.workspace_id
            AND s.deleted_at IS NULL
            AND s.is_active
            AND s.created_at <= e.created_at
            AND (s.scope = 'account' OR s.profile_id = e.profile_id)
            AND (s.events @> ARRAY[e.type]::text[] OR s.events @> ARRAY[$3]::text[])
         ON CONFLICT (subscription_id, event_id) DO NOTHING
         RETURNING id, workspace_id, event_created_at)
       SELECT id, workspace_id FROM (
         SELECT id, workspace_id, event_created_at FROM ins
         UNION ALL
         SELECT d.id, d.workspace_id, d.event_created_at FROM webhook_deliveries d
           JOIN e ON d.workspace_id = e.workspace_id AND d.event_id = e.id
          WHERE d.status = 'pending') p
       ORDER BY event_created_at`,
      [eventIds, WEBHOOK_EVENT_TYPES, WILDCARD],
    );
    if (pending.length === 0) return { queued: 0, handled: false };
    // First attempts right here (no job per delivery unless the workspace's share is taken), each
    // workspace's within its own share. The events' handled mark goes with the outcomes when the
    // batch is one workspace's (the usual case: a platform's own traffic).
    const byWorkspace = new Map<string, string[]>();
    for (const d of pending) {
      const ids = byWorkspace.get(d.workspace_id);
      if (ids) ids.push(d.id);
      else byWorkspace.set(d.workspace_id, [d.id]);
    }
    const handledWith = markHandled && byWorkspace.size === 1 ? eventIds : undefined;
    const handled = await Promise.all(
      [...byWorkspace].map(([workspaceId, ids]) => this.deliveries.attemptFirst(workspaceId, ids, handledWith)),
    );
    return { queued: pending.length, handled: handled.every(Boolean) };
  }
}
