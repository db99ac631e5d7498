import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { OutboxRelayService } from '@/common/outbox/outbox-relay.service';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import type { JobPayloads } from '@/common/queue/jobs';
import { isWebhookEventType, WILDCARD } from '../event-types';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';

/**
 * `dispatch-event`: one committed outbox event → one delivery per matching active subscription.
 * Safe to run twice: the insert skips (subscription, event) pairs that exist, and every delivery
 * of the event still pending is attempted (or queued under its own id, which BullMQ deduplicates).
 */
@Injectable()
export class WebhookFanoutProcessor {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: OutboxRelayService,
    private readonly deliveries: WebhookDeliveryProcessor,
  ) {}

  @JobHandler('dispatch-event')
  async onDispatchEvent({ eventId }: JobPayloads['dispatch-event']): Promise<unknown> {
    const queued = await this.fanOut(eventId);
    await this.relay.markHandled(eventId);
    return queued;
  }

  /** Returns the number of deliveries attempted or queued. */
  async fanOut(eventId: string): Promise<number> {
    const event = await this.relay.findEvent(eventId);
    // Audit-only types (api_key.created, webhook.updated, …) are never delivered.
    if (!event || !event.profileId || !isWebhookEventType(event.type)) return 0;
    // Paused (inactive) subscriptions do not match: events while paused are dropped, not queued.
    // A subscription created after the event does not receive it either.
    // One round trip: the new deliveries, and those of an earlier run still pending (the statement's
    // snapshot does not see its own inserts, so the two sets do not overlap).
    const pending = await this.dataSource.query<{ id: string }[]>(
      `WITH ins AS (
         INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, type, payload, event_created_at, status)
         SELECT gen_random_uuid(), s.workspace_id, s.id, $1, $2, $3::jsonb, $4, 'pending'
           FROM webhook_subscriptions s
          WHERE s.workspace_id = $5
            AND s.deleted_at IS NULL
            AND s.is_active
            AND s.created_at <= $4
            AND (s.scope = 'account' OR s.profile_id = $6)
            AND (s.events @> ARRAY[$2]::text[] OR s.events @> ARRAY[$7]::text[])
         ON CONFLICT (subscription_id, event_id) DO NOTHING
         RETURNING id)
       SELECT id FROM ins
       UNION ALL
       SELECT id FROM webhook_deliveries WHERE workspace_id = $5 AND event_id = $1 AND status = 'pending'`,
      [event.id, event.type, JSON.stringify(event.data), event.createdAt, event.workspaceId, event.profileId, WILDCARD],
    );
    // First attempts right here (no job per delivery unless the workspace's share is taken).
    await this.deliveries.attemptFirst(
      event.workspaceId,
      pending.map((d) => d.id),
    );
    return pending.length;
  }
}
