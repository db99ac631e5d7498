import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ApiKeyEntity } from '@/modules/keys/api-key.entity';
import { ProfileEntity } from '@/modules/profiles/profile.entity';
import { WorkspaceEntity } from '@/modules/workspaces/workspace.entity';
import { ApiError } from '../errors/api-error';
import { hashApiKey, isWellFormedApiKey } from './api-key-secret';
import { AuthCache } from './auth-cache';

export interface AuthenticatedKey {
  key: ApiKeyEntity;
  workspace: WorkspaceEntity;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

@Injectable()
export class AuthService {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    @InjectRepository(ProfileEntity) private readonly profiles: Repository<ProfileEntity>,
    private readonly cache: AuthCache,
  ) {}

  /**
   * Resolves a raw bearer token to its key; 401 for unknown, revoked, malformed or expired keys.
   * One query (the key joined to its workspace), cached per key hash by AuthCache; the expiry
   * is checked on every call, cached or not.
   */
  async authenticate(raw: string): Promise<AuthenticatedKey> {
    if (!isWellFormedApiKey(raw)) throw new ApiError('invalid_api_key');
    const hash = hashApiKey(raw);
    const found = await this.cache.get(
      `key:${hash}`,
      () => this.load(hash),
      (k) => k !== null,
    );
    if (!found || found.key.revokedAt) throw new ApiError('invalid_api_key');
    const { key } = found;
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw new ApiError('api_key_expired');
    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() > 60_000) {
      // Best effort and off the response path: a lost update only delays lastUsedAt. Noted on
      // the (possibly cached) object so that one update goes out per minute, not one per request.
      key.lastUsedAt = new Date();
      void this.keys.update({ id: key.id }, { lastUsedAt: key.lastUsedAt }).catch(() => undefined);
    }
    return found;
  }

  private async load(hash: string): Promise<AuthenticatedKey | null> {
    const key = await this.keys
      .createQueryBuilder('k')
      .innerJoinAndMapOne('k.workspace', WorkspaceEntity, 'w', 'w.id = k.workspace_id')
      .where('k.key_hash = :hash', { hash })
      .getOne();
    if (!key) return null;
    const { workspace, ...rest } = key as ApiKeyEntity & { workspace: WorkspaceEntity };
    return { key: Object.assign(new ApiKeyEntity(), rest), workspace };
  }

  /** True when the profile exists in the workspace (not deleted) and the key may reach it. */
  async canReachProfile(key: ApiKeyEntity, profileId: string): Promise<boolean> {
    if (!isUuid(profileId)) return false;
    if (key.profileIds && !key.profileIds.includes(profileId)) return false;
    return this.cache.get(
      `profile:${key.workspaceId}:${profileId}`,
      () => this.profiles.exists({ where: { id: profileId, workspaceId: key.workspaceId, deletedAt: IsNull() } }),
      (exists) => exists,
    );
  }
}
