import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { DataSource, In } from 'typeorm';
import { SecretBox } from '@/common/crypto/secret-box';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import type { JobPayloads } from '@/common/queue/jobs';
import { QueueService } from '@/common/queue/queue.service';
import { AppConfig } from '@/config/config';
import { WebhookDeliveryEntity } from '../entities/webhook-delivery.entity';
import { WebhookSubscriptionEntity } from '../entities/webhook-subscription.entity';
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
    { deliveryId }: JobPayloads['deliver-webhook'],
    job: Job<JobPayloads['deliver-webhook']>,
    token?: string,
  ): Promise<unknown> {
    return this.attemptFairly(deliveryId, job, token);
  }

  /**
   * One attempt within the workspace's share of deliveries in flight. When the share is taken,
   * the job goes back to the queue for a moment (no attempt counted, no worker slot held), so one
   * tenant's hanging receivers cannot delay the other tenants' deliveries.
   */
  async attemptFairly(deliveryId: string, job: Job, token: string | undefined): Promise<void> {
    const row = await this.dataSource
      .getRepository(WebhookDeliveryEntity)
      .findOne({ select: { id: true, workspaceId: true }, where: { id: deliveryId } });
    if (!row) return;
    const slot = await this.slots.tryAcquire(row.workspaceId);
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

  async attempt(deliveryId: string, job: Pick<Job, 'attemptsMade' | 'opts'>): Promise<void> {
    const deliveries = this.dataSource.getRepository(WebhookDeliveryEntity);
    const delivery = await deliveries.findOne({ where: { id: deliveryId } });
    if (!delivery || (delivery.status !== 'pending' && delivery.status !== 'failed')) return;
    const sub = await this.dataSource.getRepository(WebhookSubscriptionEntity).findOne({
      where: {
        id: delivery.subscriptionId,
        workspaceId: delivery.workspaceId,
      },
      withDeleted: true,
    });
    if (!sub || sub.deletedAt || !sub.isActive) {
      await deliveries.update(
        { id: delivery.id, status: In(['pending', 'failed']) },
        {
          status: 'cancelled',
          nextAttemptAt: null,
          error:
            !sub || sub.deletedAt
              ? 'Subscription deleted before the attempt'
              : 'Subscription paused before the attempt',
        },
      );
      return;
    }

    // Count the attempt before sending, so the header and the record agree even after a crash.
    const claimed = await deliveries
      .createQueryBuilder()
      .update()
      .set({ attempts: () => 'attempts + 1', lastAttemptAt: () => 'now()' })
      .where('id = :id AND status IN (:...statuses)', {
        id: delivery.id,
        statuses: ['pending', 'failed'],
      })
      .returning(['attempts'])
      .execute();
    const attempt = (claimed.raw as { attempts: number }[])[0]?.attempts;
    if (attempt === undefined) return;

    const rawBody = JSON.stringify(envelopeOf(delivery));
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [SIGNATURE_HEADER]: signatureHeader(this.box.open(sub.secretEnc), rawBody),
      'Service-Event': delivery.type,
      'Service-Event-Id': delivery.id,
      'Service-Delivery-Attempt': String(attempt),
    };
    const result = await this.sender.send(sub.url, rawBody, headers);

    if (result.ok) {
      await deliveries.update(
        { id: delivery.id },
        {
          status: 'succeeded',
          responseCode: result.status,
          responseBody: result.body,
          error: null,
          nextAttemptAt: null,
        },
      );
      return;
    }
    const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const delay = this.config.webhooks.retryDelaysMs[job.attemptsMade] ?? 0;
    await deliveries.update(
      { id: delivery.id },
      {
        status: last ? 'abandoned' : 'failed',
        responseCode: result.status,
        responseBody: result.body,
        error: result.error,
        nextAttemptAt: last ? null : new Date(Date.now() + delay),
      },
    );
    if (last)
      this.logger.warn(
        { deliveryId: delivery.id, subscriptionId: sub.id, attempts: attempt },
        'Webhook delivery abandoned',
      );
    throw new DeliveryAttemptFailed(
      `Delivery ${delivery.id} attempt ${attempt} failed: ${result.error ?? 'unknown error'}`,
    );
  }
}
