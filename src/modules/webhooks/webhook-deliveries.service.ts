import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { isUuid } from '@/common/auth/auth.service';
import { ApiError } from '@/common/errors/api-error';
import { OutboxService } from '@/common/outbox/outbox.service';
import { paged, pageWindow } from '@/common/pagination/pagination';
import { QueueService } from '@/common/queue/queue.service';
import { eventScopeCondition } from '../audit/event-scope';
import { EntitlementsService } from '../plans/entitlements.service';
import {
  ListDeliveriesQueryDto,
  TestWebhookDto,
  WebhookDeliveryDto,
  WebhookDeliveryListDto,
  WebhookDeliveryResponseDto,
} from './dto/webhook.dto';
import { DeliveryStatus, WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEventType, sampleEventData } from './event-types';
import { oneShotJobOptions } from './jobs/webhook-jobs';
import { WebhooksService } from './webhooks.service';

export function toDeliveryDto(d: WebhookDeliveryEntity): WebhookDeliveryDto {
  return {
    id: d.id,
    subscriptionId: d.subscriptionId,
    eventId: d.eventId,
    type: d.type,
    status: d.status,
    attempts: d.attempts,
    responseCode: d.responseCode,
    responseBody: d.responseBody,
    error: d.error,
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    eventCreatedAt: d.eventCreatedAt.toISOString(),
    data: d.payload,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

/**
 * A key restricted to accounts sees the deliveries of real events it may see (event-scope.ts);
 * test deliveries (no event, made-up data) stay visible.
 */
function deliveryScopeCondition(alias: string): string {
  return `(${alias}.event_id IS NULL OR ${eventScopeCondition(`${alias}.payload`)})`;
}

const REDELIVERABLE: DeliveryStatus[] = ['failed', 'abandoned', 'cancelled'];

/** Delivery records of a subscription: listing, synthetic test events, manual redelivery. */
@Injectable()
export class WebhookDeliveriesService {
  constructor(
    @InjectRepository(WebhookDeliveryEntity)
    private readonly deliveries: Repository<WebhookDeliveryEntity>,
    private readonly dataSource: DataSource,
    private readonly webhooks: WebhooksService,
    private readonly outbox: OutboxService,
    private readonly entitlements: EntitlementsService,
    private readonly queues: QueueService,
  ) {}

  async list(
    auth: AuthContext,
    subscriptionId: string,
    query: ListDeliveriesQueryDto,
  ): Promise<WebhookDeliveryListDto> {
    this.entitlements.assertFeature(auth, 'webhooks');
    const sub = await this.webhooks.findOwned(auth, subscriptionId);
    const window = pageWindow(query);
    const qb = this.deliveries
      .createQueryBuilder('d')
      .where('d.workspace_id = :ws AND d.subscription_id = :sub', { ws: auth.workspaceId, sub: sub.id });
    if (query.status) qb.andWhere('d.status = :status', { status: query.status });
    if (auth.accountIds) qb.andWhere(deliveryScopeCondition('d'), { scopeAccountIds: auth.accountIds });
    const [rows, total] = await qb
      .orderBy('d.created_at', 'DESC')
      .addOrderBy('d.id', 'DESC')
      .skip(window.offset)
      .take(window.limit)
      .getManyAndCount();
    return { deliveries: rows.map(toDeliveryDto), ...paged(window, total) };
  }

  /** A synthetic event of the given type, delivered once (no automatic retries) like a real one, with `data.test: true`. */
  async sendTest(auth: AuthContext, subscriptionId: string, dto: TestWebhookDto): Promise<WebhookDeliveryResponseDto> {
    this.entitlements.assertFeature(auth, 'webhooks');
    const delivery = await this.dataSource.transaction(async (m) => {
      const sub = await this.webhooks.findOwned(auth, subscriptionId, m);
      if (!sub.isActive)
        throw new ApiError(
          'invalid_state_transition',
          `Webhook '${sub.id}' is paused; set isActive to true before sending a test event.`,
        );
      const row = await m.save(
        m.create(WebhookDeliveryEntity, {
          id: randomUUID(),
          workspaceId: auth.workspaceId,
          subscriptionId: sub.id,
          eventId: null,
          type: dto.eventType,
          payload: sampleEventData(dto.eventType as WebhookEventType, sub.profileId),
          eventCreatedAt: new Date(),
          status: 'pending',
          attempts: 0,
        }),
      );
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: sub.profileId,
        type: 'webhook.tested',
        actor: actorOf(auth),
        data: { id: sub.id, deliveryId: row.id, eventType: dto.eventType },
      });
      return row;
    });
    await this.enqueueOrRevert(delivery, 'abandoned', oneShotJobOptions(delivery.id));
    return { delivery: toDeliveryDto(delivery) };
  }

  /**
   * Sends a failed, abandoned or cancelled delivery again: same `id`, the next attempt number.
   * A delivery waiting for its next automatic retry has that retry brought forward instead.
   */
  async redeliver(auth: AuthContext, subscriptionId: string, deliveryId: string): Promise<WebhookDeliveryResponseDto> {
    this.entitlements.assertFeature(auth, 'webhooks');
    if (!isUuid(deliveryId)) throw ApiError.notFound('delivery', deliveryId);
    const { delivery, previous } = await this.dataSource.transaction(async (m) => {
      const sub = await this.webhooks.findOwned(auth, subscriptionId, m);
      const qb = m
        .getRepository(WebhookDeliveryEntity)
        .createQueryBuilder('d')
        .where('d.id = :id AND d.subscription_id = :sub AND d.workspace_id = :ws', {
          id: deliveryId,
          sub: sub.id,
          ws: auth.workspaceId,
        })
        .setLock('pessimistic_write');
      if (auth.accountIds) qb.andWhere(deliveryScopeCondition('d'), { scopeAccountIds: auth.accountIds });
      const found = await qb.getOne();
      if (!found) throw ApiError.notFound('delivery', deliveryId);
      if (!REDELIVERABLE.includes(found.status)) {
        throw new ApiError(
          'invalid_state_transition',
          `Delivery '${found.id}' is ${found.status}; only failed, abandoned or cancelled deliveries can be redelivered.`,
        );
      }
      if (!sub.isActive)
        throw new ApiError(
          'invalid_state_transition',
          `Webhook '${sub.id}' is paused; set isActive to true before redelivering.`,
        );
      const before = found.status;
      found.status = 'pending';
      found.nextAttemptAt = new Date();
      const saved = await m.save(found);
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: sub.profileId,
        type: 'webhook.delivery_retried',
        actor: actorOf(auth),
        data: { id: sub.id, deliveryId: found.id, previousStatus: before },
      });
      return { delivery: saved, previous: before };
    });
    const scheduled = await this.queues.queue('webhooks').getJob(delivery.id);
    if (scheduled && (await scheduled.isDelayed())) {
      // If it started meanwhile, it runs now anyway.
      await scheduled.promote().catch(() => undefined);
    } else {
      await this.enqueueOrRevert(delivery, previous, oneShotJobOptions(`${delivery.id}-r${delivery.attempts + 1}`));
    }
    return { delivery: toDeliveryDto(delivery) };
  }

  /** The job is added after the commit (a worker must see the row); if Redis refuses, undo the status change. */
  private async enqueueOrRevert(
    delivery: WebhookDeliveryEntity,
    revertTo: DeliveryStatus,
    opts: ReturnType<typeof oneShotJobOptions>,
  ): Promise<void> {
    try {
      await this.queues.enqueue(
        'deliver-webhook',
        { deliveryId: delivery.id, workspaceId: delivery.workspaceId },
        opts,
      );
    } catch (err) {
      await this.deliveries
        .update(
          { id: delivery.id, status: 'pending' },
          {
            status: revertTo,
            nextAttemptAt: null,
            error: 'Could not be queued',
          },
        )
        .catch(() => undefined);
      throw err;
    }
  }
}
