import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { ApiKeyEntity } from '@/modules/keys/api-key.entity';
import { ProfileEntity } from '@/modules/profiles/profile.entity';
import { WorkspaceEntity } from '@/modules/workspaces/workspace.entity';
import { ApiError } from '../errors/api-error';
import { hashApiKey, isWellFormedApiKey } from './api-key-secret';

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
    @InjectRepository(WorkspaceEntity) private readonly workspaces: Repository<WorkspaceEntity>,
    @InjectRepository(ProfileEntity) private readonly profiles: Repository<ProfileEntity>,
  ) {}

  /** Resolves a raw bearer token to its key; 401 for unknown, revoked, malformed or expired keys. */
  async authenticate(raw: string): Promise<AuthenticatedKey> {
    if (!isWellFormedApiKey(raw)) throw new ApiError('invalid_api_key');
    const key = await this.keys.findOne({ where: { keyHash: hashApiKey(raw) } });
    if (!key || key.revokedAt) throw new ApiError('invalid_api_key');
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw new ApiError('api_key_expired');
    const workspace = await this.workspaces.findOne({ where: { id: key.workspaceId } });
    if (!workspace) throw new ApiError('invalid_api_key');
    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() > 60_000) {
      // Best effort and off the response path: a lost update only delays lastUsedAt.
      void this.keys.update({ id: key.id }, { lastUsedAt: new Date() }).catch(() => undefined);
    }
    return { key, workspace };
  }

  /** True when the profile exists in the workspace (not deleted) and the key may reach it. */
  async canReachProfile(key: ApiKeyEntity, profileId: string): Promise<boolean> {
    if (!isUuid(profileId)) return false;
    if (key.profileIds && !key.profileIds.includes(profileId)) return false;
    return this.profiles.exists({ where: { id: profileId, workspaceId: key.workspaceId, deletedAt: IsNull() } });
  }
}
