import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { SecretBox } from '@/common/crypto/secret-box';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import type { JobPayloads } from '@/common/queue/jobs';
import { QueueService } from '@/common/queue/queue.service';
import { AppConfig } from '@/config/config';
import { WebhookDeliveryEntity } from '../entities/webhook-delivery.entity';
import { WebhookSender } from '../webhook-sender';
import { signatureHeader, SIGNATURE_HEADER } from '../webhook-signature';
import { WEBHOOK_BACKOFF } from './webhook-jobs';
import { WorkspaceDeliverySlots } from './workspace-delivery-slots';

/** How long a delivery whose workspace has no free slot waits before it is tried again (plus jitter). */
const SLOT_RETRY_MS = 250;

export const USER_AGENT = 'SocialPublishingService-Webhooks/1.0';

/** What a receiver gets: the envelope of the spec (Events → Envelope). */
export function envelopeOf(d: Pick<WebhookDeliveryEntity, 'id' | 'type' | 'eventCreatedAt' | 'payload'>): {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
} {
  return {
    id: d.id,
    type: d.type,
    createdAt: d.eventCreatedAt.toISOString(),
    data: d.payload,
  };
}

/** Thrown to hand a failed attempt to BullMQ's retry schedule. */
export class DeliveryAttemptFailed extends Error {
  override readonly name = 'DeliveryAttemptFailed';
}

/**
 * `deliver-webhook`: one attempt of one delivery. Reloads the delivery and its subscription
 * (paused or deleted → `cancelled`, nothing sent), signs afresh with the current secret, POSTs,
 * records the outcome and throws on failure so BullMQ applies the retry schedule
 * (`attempts: 7`, custom backoff from config.webhooks.retryDelaysMs).
 */
@Injectable()
export class WebhookDeliveryProcessor implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueService,
    private readonly sender: WebhookSender,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
    private readonly slots: WorkspaceDeliverySlots,
  ) {}

  onModuleInit(): void {
    const delays = this.config.webhooks.retryDelaysMs;
    // BullMQ passes the number of attempts made so far (1 after the first failure).
    this.queues.registerBackoff(
      WEBHOOK_BACKOFF,
      (attemptsMade) => delays[Math.min(attemptsMade, delays.length) - 1] ?? 0,
    );
    // A receiver that hangs holds one slot for at most the time-out; keep plenty of slots.
    this.queues.configureQueue('webhooks', { concurrency: 50 });
  }

  @JobHandler('deliver-webhook')
  onDeliverWebhook(
    { deliveryId, workspaceId }: JobPayloads['deliver-webhook'],
    job: Job<JobPayloads['deliver-webhook']>,
    token?: string,
  ): Promise<unknown> {
    return this.attemptFairly(deliveryId, workspaceId, job, token);
  }

  /**
   * One attempt within the workspace's share of deliveries in flight. When the share is taken,
   * the job goes back to the queue for a moment (no attempt counted, no worker slot held), so one
   * tenant's hanging receivers cannot delay the other tenants' deliveries. The workspace comes
   * with the job (jobs queued before it did are looked up).
   */
  async attemptFairly(
    deliveryId: string,
    workspaceId: string | undefined,
    job: Job,
    token: string | undefined,
  ): Promise<void> {
    let workspace = workspaceId;
    if (!workspace) {
      const [row] = await this.dataSource.query<{ workspace_id: string }[]>(
        `SELECT workspace_id FROM webhook_deliveries WHERE id = $1`,
        [deliveryId],
      );
      if (!row) return;
      workspace = row.workspace_id;
    }
    const slot = await this.slots.tryAcquire(workspace);
    if (!slot) {
      await job.moveToDelayed(Date.now() + SLOT_RETRY_MS + Math.floor(Math.random() * SLOT_RETRY_MS), token);
      throw new DelayedError();
    }
    try {
      await this.attempt(deliveryId, job);
    } finally {
      await slot.release();
    }
  }

  /**
   * Two round trips to Postgres per attempt: the claim (which also reads the delivery and its
   * subscription) and the outcome.
   */
  async attempt(deliveryId: string, job: Pick<Job, 'attemptsMade' | 'opts'>): Promise<void> {
    // Count the attempt before sending, so the header and the record agree even after a crash;
    // only a pending or failed delivery of an active subscription is claimed.
    const [claimed] = await this.updateReturning<ClaimedDelivery>(
      `UPDATE webhook_deliveries d SET attempts = d.attempts + 1, last_attempt_at = now(), updated_at = now()
         FROM webhook_subscriptions s
        WHERE d.id = $1 AND d.status IN ('pending', 'failed')
          AND s.id = d.subscription_id AND s.workspace_id = d.workspace_id AND s.deleted_at IS NULL AND s.is_active
        RETURNING d.id, d.type, d.payload, d.event_created_at, d.attempts, s.id AS subscription_id, s.url, s.secret_enc`,
      [deliveryId],
    );
    if (!claimed) {
      // Paused or deleted subscription: cancelled, nothing sent (a delivery already final stays as it is).
      await this.dataSource.query(
        `UPDATE webhook_deliveries d
            SET status = 'cancelled', next_attempt_at = NULL, updated_at = now(),
                error = CASE WHEN s.id IS NULL OR s.deleted_at IS NOT NULL
                             THEN 'Subscription deleted before the attempt'
                             ELSE 'Subscription paused before the attempt' END
           FROM webhook_deliveries o
           LEFT JOIN webhook_subscriptions s ON s.id = o.subscription_id AND s.workspace_id = o.workspace_id
          WHERE d.id = $1 AND o.id = d.id AND d.status IN ('pending', 'failed')
            AND (s.id IS NULL OR s.deleted_at IS NOT NULL OR NOT s.is_active)`,
        [deliveryId],
      );
      return;
    }
    const attempt = claimed.attempts;
    const rawBody = JSON.stringify(
      envelopeOf({
        id: claimed.id,
        type: claimed.type,
        eventCreatedAt: claimed.event_created_at,
        payload: claimed.payload,
      }),
    );
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [SIGNATURE_HEADER]: signatureHeader(this.box.open(claimed.secret_enc), rawBody),
      'Service-Event': claimed.type,
      'Service-Event-Id': claimed.id,
      'Service-Delivery-Attempt': String(attempt),
    };
    const result = await this.sender.send(claimed.url, rawBody, headers);

    const last = !result.ok && job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const delay = this.config.webhooks.retryDelaysMs[job.attemptsMade] ?? 0;
    await this.dataSource.query(
      `UPDATE webhook_deliveries
          SET status = $2, response_code = $3, response_body = $4, error = $5, next_attempt_at = $6, updated_at = now()
        WHERE id = $1`,
      [
        claimed.id,
        result.ok ? 'succeeded' : last ? 'abandoned' : 'failed',
        result.status,
        result.body,
        result.ok ? null : result.error,
        result.ok || last ? null : new Date(Date.now() + delay),
      ],
    );
    if (result.ok) return;
    if (last)
      this.logger.warn(
        { deliveryId: claimed.id, subscriptionId: claimed.subscription_id, attempts: attempt },
        'Webhook delivery abandoned',
      );
    throw new DeliveryAttemptFailed(
      `Delivery ${claimed.id} attempt ${attempt} failed: ${result.error ?? 'unknown error'}`,
    );
  }

  /** TypeORM answers an UPDATE … RETURNING with [rows, count]. */
  private async updateReturning<T>(sql: string, params: unknown[]): Promise<T[]> {
    const [rows] = await this.dataSource.query<[T[], number]>(sql, params);
    return rows;
  }
}

interface ClaimedDelivery {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  event_created_at: Date;
  attempts: number;
  subscription_id: string;
  url: string;
  secret_enc: string;
}
