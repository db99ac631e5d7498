import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { AppConfig } from '@/config/config';
import { displayPrefix, generateApiKey, hashApiKey } from '@/common/auth/api-key-secret';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { AuthCache } from '@/common/auth/auth-cache';
import { isUuid } from '@/common/auth/auth.service';
import { isGrant, isSubset } from '@/common/auth/permissions';
import { ApiError } from '@/common/errors/api-error';
import { OutboxService } from '@/common/outbox/outbox.service';
import { paged, pageWindow } from '@/common/pagination/pagination';
import { ApiKeyEntity } from './api-key.entity';
import {
  ApiKeyDto,
  ApiKeyListDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  ListApiKeysQueryDto,
  RevokedApiKeyDto,
} from './dto/api-key.dto';

export interface NewKeyInput {
  workspaceId: string;
  name: string;
  permissions: string[];
  homeProfileId: string;
  profileIds?: string[] | null;
  accountIds?: string[] | null;
  ownerUserId?: string | null;
  expiresAt?: Date | null;
  maxPostsPerDay?: number | null;
  rateLimitPerMinute?: number | null;
  rateLimitPerHour?: number | null;
  createdByKeyId?: string | null;
}

@Injectable()
export class KeysService {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly config: AppConfig,
    private readonly authCache: AuthCache,
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
      dto.homeProfileId ?? (profileIds && !profileIds.includes(auth.profileId) ? profileIds[0]! : auth.profileId);
    if (profileIds && !profileIds.includes(homeProfileId))
      throw ApiError.invalid('homeProfileId', 'homeProfileId must be one of profileIds.');
    const expiresAt = dto.expiresAt ? new Date(dto.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= Date.now())
      throw ApiError.invalid('expiresAt', 'expiresAt must be in the future.');
    const ceiling = await this.rateCeiling(auth.keyId);
    if (dto.rateLimitPerMinute && dto.rateLimitPerMinute > ceiling) {
      throw ApiError.invalid(
        'rateLimitPerMinute',
        `rateLimitPerMinute cannot exceed the creating key's own (${ceiling}).`,
      );
    }
    return this.dataSource.transaction(async (m) => {
      await this.assertProfilesExist(m, auth.workspaceId, [homeProfileId, ...(profileIds ?? [])]);
      const ownerUserId = dto.ownerUserId ?? auth.ownerUserId;
      if (ownerUserId) {
        const [u] = (await m.query('SELECT 1 FROM users WHERE id = $1 AND workspace_id = $2', [
          ownerUserId,
          auth.workspaceId,
        ])) as unknown[];
        if (!u) throw ApiError.invalid('ownerUserId', `ownerUserId '${ownerUserId}' is not a user of this workspace.`);
      }
      const { entity, secret } = await this.insertKey(m.getRepository(ApiKeyEntity), {
        workspaceId: auth.workspaceId,
        name: dto.name,
        permissions,
        homeProfileId,
        profileIds,
        accountIds,
        ownerUserId,
        expiresAt,
        maxPostsPerDay: dto.maxPostsPerDay ?? null,
        rateLimitPerMinute: dto.rateLimitPerMinute ?? null,
        createdByKeyId: auth.keyId,
      });
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: auth.profileId,
        type: 'api_key.created',
        actor: actorOf(auth),
        data: { apiKey: this.toDto(entity) },
      });
      return { apiKey: this.toDto(entity), secret };
    });
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

  /** Creates a key row; used by the API and by the operator CLI. Returns the secret once. */
  async insertKey(
    repo: Repository<ApiKeyEntity>,
    input: NewKeyInput,
  ): Promise<{ entity: ApiKeyEntity; secret: string }> {
    const secret = generateApiKey();
    const entity = await repo.save(
      repo.create({
        workspaceId: input.workspaceId,
        name: input.name,
        prefix: displayPrefix(secret),
        keyHash: hashApiKey(secret),
        permissions: input.permissions,
        homeProfileId: input.homeProfileId,
        profileIds: input.profileIds ?? null,
        accountIds: input.accountIds ?? null,
        ownerUserId: input.ownerUserId ?? null,
        expiresAt: input.expiresAt ?? null,
        maxPostsPerDay: input.maxPostsPerDay ?? null,
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
        rateLimitPerHour: input.rateLimitPerHour ?? null,
        createdByKeyId: input.createdByKeyId ?? null,
      }),
    );
    return { entity, secret };
  }

  private async rateCeiling(keyId: string): Promise<number> {
    const key = await this.keys.findOne({ where: { id: keyId } });
    return key?.rateLimitPerMinute ?? this.config.rateLimit.perMinute;
  }

  private async assertProfilesExist(
    m: import('typeorm').EntityManager,
    workspaceId: string,
    ids: string[],
  ): Promise<void> {
    const unique = [...new Set(ids)];
    const rows = (await m.query(
      'SELECT id FROM profiles WHERE workspace_id = $1 AND deleted_at IS NULL AND id = ANY($2::uuid[])',
      [workspaceId, unique],
    )) as { id: string }[];
    const found = new Set(rows.map((r) => r.id));
    const missing = unique.find((id) => !found.has(id));
    if (missing)
      throw new ApiError('profile_not_accessible', `Profile '${missing}' is not accessible with this API key.`);
  }
}
