import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, Repository } from 'typeorm';
import { AppConfig } from '@/config/config';
import { parseStrictDateTime } from '@/common/dates/strict-dates';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { AuthCache } from '@/common/auth/auth-cache';
import { isUuid } from '@/common/auth/auth.service';
import { isGrant, isSubset } from '@/common/auth/permissions';
import { ApiError } from '@/common/errors/api-error';
import { OutboxService } from '@/common/outbox/outbox.service';
import { paged, pageWindow } from '@/common/pagination/pagination';
import { EntitlementsService } from '../plans/entitlements.service';
import { ProfilesService } from '../profiles/profiles.service';
import { ApiKeyEntity } from './api-key.entity';
import { issueApiKey } from './issue-api-key';
import {
  ApiKeyDto,
  ApiKeyListDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  ListApiKeysQueryDto,
  RevokedApiKeyDto,
} from './dto/api-key.dto';

@Injectable()
export class KeysService {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly config: AppConfig,
    private readonly entitlements: EntitlementsService,
    private readonly authCache: AuthCache,
    private readonly profiles: ProfilesService,
  ) {}

  toDto(k: ApiKeyEntity): ApiKeyDto {
    return {
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      permissions: k.permissions,
      profileIds: k.profileIds,
      accountIds: k.accountIds,
      homeProfileId: k.homeProfileId,
      ownerUserId: k.ownerUserId,
      expiresAt: k.expiresAt?.toISOString() ?? null,
      maxPostsPerDay: k.maxPostsPerDay,
      rateLimitPerMinute: k.rateLimitPerMinute ?? this.config.rateLimit.perMinute,
      rateLimitPerHour: k.rateLimitPerHour ?? this.config.rateLimit.perHour,
      lastUsedAt: k.lastUsedAt?.toISOString() ?? null,
      revokedAt: k.revokedAt?.toISOString() ?? null,
      createdAt: k.createdAt.toISOString(),
    };
  }

  async list(auth: AuthContext, query: ListApiKeysQueryDto): Promise<ApiKeyListDto> {
    const window = pageWindow(query);
    const qb = this.keys.createQueryBuilder('k').where('k.workspace_id = :ws', { ws: auth.workspaceId });
    // A key restricted to profiles sees only keys whose scope lies inside its own.
    if (auth.profileIds)
      qb.andWhere('k.profile_ids IS NOT NULL AND k.profile_ids <@ :scope::uuid[]', { scope: auth.profileIds });
    const [rows, total] = await qb
      .orderBy('k.created_at', 'DESC')
      .addOrderBy('k.id', 'DESC')
      .skip(window.offset)
      .take(window.limit)
      .getManyAndCount();
    return { apiKeys: rows.map((k) => this.toDto(k)), ...paged(window, total) };
  }

  /**
   * A key made by a key never exceeds its maker: permissions, profiles and accounts inside the
   * maker's; expiry not later, `maxPostsPerDay` and rate ceilings not higher (each inherited when
   * omitted); the owner is the maker's own (the operator CLI makes keys for other people).
   */
  async create(auth: AuthContext, dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    const permissions = dto.permissions ?? auth.permissions;
    const bad = permissions.find((p) => !isGrant(p));
    if (bad) throw ApiError.invalid('permissions', `permissions contains an unknown permission '${bad}'.`);
    if (!isSubset(permissions, auth.permissions)) {
      const missing = permissions.find((p) => !isSubset([p], auth.permissions)) ?? '*';
      throw new ApiError(
        'insufficient_permission',
        `A key can only grant permissions it holds itself; it lacks '${missing}'.`,
        { required: missing },
      );
    }
    const profileIds = dto.profileIds ?? auth.profileIds;
    if (auth.profileIds && profileIds && !profileIds.every((p) => auth.profileIds!.includes(p))) {
      throw new ApiError('profile_not_accessible', "profileIds must lie inside the creating key's own profiles.");
    }
    const accountIds = dto.accountIds ?? auth.accountIds;
    if (auth.accountIds && accountIds && !accountIds.every((a) => auth.accountIds!.includes(a))) {
      throw new ApiError('account_not_allowed', "accountIds must lie inside the creating key's own accounts.");
    }
    const homeProfileId =
      dto.homeProfileId ?? (profileIds && !profileIds.includes(auth.profileId) ? profileIds[0] : auth.profileId);
    if (profileIds && !profileIds.includes(homeProfileId))
      throw ApiError.invalid('homeProfileId', 'homeProfileId must be one of profileIds.');
    if (dto.ownerUserId !== undefined && dto.ownerUserId !== auth.ownerUserId)
      throw ApiError.invalid(
        'ownerUserId',
        "ownerUserId can only be the creating key's own owner; keys for other people are made with the operator CLI (npm run admin -- key --email).",
      );
    const maker = await this.keys.findOne({ where: { id: auth.keyId, workspaceId: auth.workspaceId } });
    if (!maker) throw new ApiError('invalid_api_key');
    const limits = this.inheritedLimits(maker, dto);
    return this.dataSource.transaction(async (m) => {
      await this.assertProfilesExist(m, auth.workspaceId, [homeProfileId, ...(profileIds ?? [])]);
      // Keys made through the API (the operator CLI is not capped); serialised per workspace.
      await this.entitlements.assertQuota(
        auth.plan,
        'api_keys',
        'API keys (not revoked) per workspace',
        () => m.count(ApiKeyEntity, { where: { workspaceId: auth.workspaceId, revokedAt: IsNull() } }),
        { manager: m, key: `keys:${auth.workspaceId}` },
      );
      const { entity, secret } = await issueApiKey(
        m,
        {
          workspaceId: auth.workspaceId,
          name: dto.name,
          permissions,
          homeProfileId,
          profileIds,
          accountIds,
          ownerUserId: auth.ownerUserId,
          ...limits,
          createdByKeyId: auth.keyId,
        },
        { actor: actorOf(auth), profileId: auth.profileId },
      );
      return { apiKey: this.toDto(entity), secret };
    });
  }

  /** Expiry, daily cap and rate ceilings of a key made by `maker`: at most the maker's, the maker's when omitted. */
  private inheritedLimits(
    maker: ApiKeyEntity,
    dto: CreateApiKeyDto,
  ): Pick<ApiKeyEntity, 'expiresAt' | 'maxPostsPerDay' | 'rateLimitPerMinute' | 'rateLimitPerHour'> {
    const expiresAt = dto.expiresAt !== undefined ? parseStrictDateTime(dto.expiresAt, 'expiresAt') : maker.expiresAt;
    if (dto.expiresAt !== undefined && expiresAt!.getTime() <= Date.now())
      throw ApiError.invalid('expiresAt', 'expiresAt must be in the future.');
    if (expiresAt && maker.expiresAt && expiresAt.getTime() > maker.expiresAt.getTime())
      throw ApiError.invalid(
        'expiresAt',
        `expiresAt cannot be later than the creating key's own expiry (${maker.expiresAt.toISOString()}).`,
      );
    const cap = (field: 'maxPostsPerDay' | 'rateLimitPerMinute' | 'rateLimitPerHour', ceiling: number | null) => {
      const asked = dto[field];
      if (asked === undefined) return maker[field];
      if (ceiling !== null && asked > ceiling)
        throw ApiError.invalid(field, `${field} cannot exceed the creating key's own (${ceiling}).`);
      return asked;
    };
    return {
      expiresAt,
      maxPostsPerDay: cap('maxPostsPerDay', maker.maxPostsPerDay),
      rateLimitPerMinute: cap('rateLimitPerMinute', maker.rateLimitPerMinute ?? this.config.rateLimit.perMinute),
      rateLimitPerHour: cap('rateLimitPerHour', maker.rateLimitPerHour ?? this.config.rateLimit.perHour),
    };
  }

  async revoke(auth: AuthContext, id: string): Promise<RevokedApiKeyDto> {
    const revoked = await this.dataSource.transaction(async (m) => {
      const key = isUuid(id)
        ? await m.findOne(ApiKeyEntity, {
            where: { id, workspaceId: auth.workspaceId },
            lock: { mode: 'pessimistic_write' },
          })
        : null;
      if (
        !key ||
        (auth.profileIds && !(key.profileIds ?? []).every((p) => auth.profileIds!.includes(p))) ||
        (auth.profileIds && !key.profileIds)
      ) {
        throw ApiError.notFound('API key', id);
      }
      if (!key.revokedAt) {
        key.revokedAt = new Date();
        await m.save(key);
        await this.outbox.record(m, {
          workspaceId: auth.workspaceId,
          profileId: auth.profileId,
          type: 'api_key.revoked',
          actor: actorOf(auth),
          data: { apiKey: this.toDto(key) },
        });
      }
      return { id: key.id, revoked: true, revokedAt: key.revokedAt.toISOString() };
    });
    // Every process drops its cached copy of the key (AuthCache), this one before answering.
    await this.authCache.changed(`key:${revoked.id}`);
    return revoked;
  }

  private async assertProfilesExist(m: EntityManager, workspaceId: string, ids: string[]): Promise<void> {
    const unique = [...new Set(ids)];
    const found = await this.profiles.existingIds(m, workspaceId, unique);
    const missing = unique.find((id) => !found.has(id));
    if (missing)
      throw new ApiError('profile_not_accessible', `Profile '${missing}' is not accessible with this API key.`);
  }
}
