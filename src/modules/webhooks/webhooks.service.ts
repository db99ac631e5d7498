import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, Repository } from 'typeorm';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { isUuid } from '@/common/auth/auth.service';
import { SecretBox } from '@/common/crypto/secret-box';
import { ApiError } from '@/common/errors/api-error';
import { assertPublicHost, BlockedAddressError } from '@/common/http/ssrf-safe-agent';
import { OutboxService } from '@/common/outbox/outbox.service';
import { paged, pageWindow } from '@/common/pagination/pagination';
import { AppConfig } from '@/config/config';
import { EntitlementsService } from '../plans/entitlements.service';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  DeletedWebhookDto,
  ListWebhooksQueryDto,
  UpdateWebhookDto,
  WebhookListDto,
  WebhookResponseDto,
  WebhookSecretDto,
  WebhookSubscriptionDto,
} from './dto/webhook.dto';
import { WebhookSubscriptionEntity } from './entities/webhook-subscription.entity';
import { WILDCARD } from './event-types';
import { generateWebhookSecret } from './webhook-signature';

export function toSubscriptionDto(s: WebhookSubscriptionEntity): WebhookSubscriptionDto {
  return {
    id: s.id,
    profileId: s.profileId,
    url: s.url,
    events: s.events,
    scope: s.scope,
    isActive: s.isActive,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** `['*', 'post.created']` means the same as `['*']`; keep the stored list canonical. */
function normaliseEvents(events: string[]): string[] {
  return events.includes(WILDCARD) ? [WILDCARD] : events;
}

/**
 * An `account` scope subscription receives every profile's events: a key limited to some
 * profiles neither sees nor changes one (it answers like a missing subscription).
 */
function visibleScopes(auth: AuthContext): { scope?: 'profile' } {
  return auth.profileIds ? { scope: 'profile' } : {};
}

/**
 * A subscription receives the events of every account of its profile: a key restricted to some
 * accounts cannot choose where they go (create one, or change its url).
 */
function assertMayPointReceivers(auth: AuthContext): void {
  if (auth.accountIds)
    throw new ApiError(
      'account_not_allowed',
      "A key restricted to accounts cannot create a subscription or change its url: subscriptions receive every account's events.",
    );
}

/** Subscriptions: CRUD and secret rotation. Every write commits with its audit row. */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectRepository(WebhookSubscriptionEntity)
    private readonly subscriptions: Repository<WebhookSubscriptionEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly entitlements: EntitlementsService,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
  ) {}

  async list(auth: AuthContext, query: ListWebhooksQueryDto): Promise<WebhookListDto> {
    this.entitlements.assertFeature(auth, 'webhooks');
    const window = pageWindow(query);
    const [rows, total] = await this.subscriptions.findAndCount({
      where: {
        workspaceId: auth.workspaceId,
        profileId: auth.profileId,
        deletedAt: IsNull(),
        ...visibleScopes(auth),
      },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: window.offset,
      take: window.limit,
    });
    return { webhooks: rows.map(toSubscriptionDto), ...paged(window, total) };
  }

  async get(auth: AuthContext, id: string): Promise<WebhookResponseDto> {
    this.entitlements.assertFeature(auth, 'webhooks');
    return { subscription: toSubscriptionDto(await this.findOwned(auth, id)) };
  }

  async create(auth: AuthContext, dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    this.entitlements.assertFeature(auth, 'webhooks');
    assertMayPointReceivers(auth);
    const scope = dto.scope ?? 'profile';
    // An account-wide subscription sees every profile's events: only for keys that reach every profile.
    if (scope === 'account' && auth.profileIds)
      throw new ApiError(
        'profile_not_accessible',
        "A key restricted to profiles cannot create an 'account' scope subscription.",
      );
    await this.assertReceiverUrl(dto.url);
    const secret = generateWebhookSecret();
    const saved = await this.dataSource.transaction(async (m) => {
      await this.entitlements.assertQuota(
        auth.plan,
        'webhooks_per_profile',
        'webhook subscriptions per profile',
        () =>
          m.count(WebhookSubscriptionEntity, {
            where: { workspaceId: auth.workspaceId, profileId: auth.profileId, deletedAt: IsNull() },
          }),
        { manager: m, key: `webhooks:${auth.profileId}` },
      );
      const row = await m.save(
        m.create(WebhookSubscriptionEntity, {
          workspaceId: auth.workspaceId,
          profileId: auth.profileId,
          url: dto.url,
          events: normaliseEvents(dto.events),
          scope,
          isActive: true,
          secretEnc: this.box.seal(secret),
        }),
      );
      await this.audit(m, auth, row, 'webhook.created', {
        subscription: toSubscriptionDto(row),
      });
      return row;
    });
    return { subscription: toSubscriptionDto(saved), secret };
  }

  async update(auth: AuthContext, id: string, dto: UpdateWebhookDto): Promise<WebhookResponseDto> {
    this.entitlements.assertFeature(auth, 'webhooks');
    if (dto.url !== undefined) assertMayPointReceivers(auth);
    if (dto.url !== undefined) await this.assertReceiverUrl(dto.url);
    const saved = await this.dataSource.transaction(async (m) => {
      const found = await this.findOwned(auth, id, m);
      const changed: string[] = [];
      if (dto.url !== undefined && dto.url !== found.url) {
        found.url = dto.url;
        changed.push('url');
      }
      if (dto.events !== undefined) {
        found.events = normaliseEvents(dto.events);
        changed.push('events');
      }
      if (dto.isActive !== undefined && dto.isActive !== found.isActive) {
        found.isActive = dto.isActive;
        changed.push('isActive');
      }
      const row = await m.save(found);
      await this.audit(m, auth, row, 'webhook.updated', {
        subscription: toSubscriptionDto(row),
        changed,
      });
      return row;
    });
    return { subscription: toSubscriptionDto(saved) };
  }

  /** Soft delete: deliveries still queued are cancelled when their attempt comes up. */
  async remove(auth: AuthContext, id: string): Promise<DeletedWebhookDto> {
    this.entitlements.assertFeature(auth, 'webhooks');
    await this.dataSource.transaction(async (m) => {
      const found = await this.findOwned(auth, id, m);
      await m.softDelete(WebhookSubscriptionEntity, { id: found.id });
      await this.audit(m, auth, found, 'webhook.deleted', { id: found.id });
    });
    return { id, deleted: true };
  }

  /** A new secret, effective at once: every attempt reads the current secret, so the old one stops verifying. */
  async rotateSecret(auth: AuthContext, id: string): Promise<WebhookSecretDto> {
    this.entitlements.assertFeature(auth, 'webhooks');
    const secret = generateWebhookSecret();
    await this.dataSource.transaction(async (m) => {
      const found = await this.findOwned(auth, id, m);
      found.secretEnc = this.box.seal(secret);
      await m.save(found);
      await this.audit(m, auth, found, 'webhook.secret_rotated', {
        id: found.id,
      });
    });
    return { secret };
  }

  /**
   * A subscription of the resolved profile (locked when inside a transaction). Another
   * profile's or workspace's id answers exactly like a missing one.
   */
  async findOwned(auth: AuthContext, id: string, m?: EntityManager): Promise<WebhookSubscriptionEntity> {
    if (!isUuid(id)) throw ApiError.notFound('webhook', id);
    const repo = m ? m.getRepository(WebhookSubscriptionEntity) : this.subscriptions;
    const found = await repo.findOne({
      where: {
        id,
        workspaceId: auth.workspaceId,
        profileId: auth.profileId,
        deletedAt: IsNull(),
        ...visibleScopes(auth),
      },
      ...(m ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!found) throw ApiError.notFound('webhook', id);
    return found;
  }

  /** https only (http too when private URLs are allowed), and the host must resolve to public addresses. */
  private async assertReceiverUrl(raw: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw ApiError.invalid('url', 'url must be an absolute https URL');
    }
    const allowPrivate = this.config.webhooks.allowPrivateUrls;
    if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
      throw ApiError.invalid('url', 'url must be an absolute https URL');
    try {
      await assertPublicHost(url.hostname, allowPrivate);
    } catch (err) {
      if (err instanceof BlockedAddressError)
        throw ApiError.invalid('url', 'url must not resolve to a private, loopback or link-local address');
      throw ApiError.invalid('url', `url host '${url.hostname}' could not be resolved`);
    }
  }

  private async audit(
    m: EntityManager,
    auth: AuthContext,
    s: WebhookSubscriptionEntity,
    type: string,
    data: Record<string, unknown>,
  ): Promise<void> {
    await this.outbox.record(m, {
      workspaceId: auth.workspaceId,
      profileId: s.profileId,
      type,
      actor: actorOf(auth),
      data,
    });
  }
}
