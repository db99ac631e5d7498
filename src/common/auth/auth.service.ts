import { Inject, Injectable } from '@nestjs/common';
import { ApiError } from '../errors/api-error';
import { hashApiKey, isWellFormedApiKey } from './api-key-secret';
import { AuthCache } from './auth-cache';
import { AuthKey, AuthenticatedKey, KEY_LOOKUP, KeyLookup, PROFILE_LOOKUP, ProfileLookup } from './auth-lookup';

export type { AuthenticatedKey } from './auth-lookup';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

@Injectable()
export class AuthService {
  constructor(
    @Inject(KEY_LOOKUP) private readonly keys: KeyLookup,
    @Inject(PROFILE_LOOKUP) private readonly profiles: ProfileLookup,
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
      () => this.keys.byHash(hash),
      (k) => k !== null,
    );
    if (!found || found.key.revokedAt) throw new ApiError('invalid_api_key');
    const { key } = found;
    if (key.expiresAt && key.expiresAt.getTime() <= Date.now()) throw new ApiError('api_key_expired');
    if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() > 60_000) {
      // Best effort and off the response path: a lost update only delays lastUsedAt. Noted on
      // the (possibly cached) object so that one update goes out per minute, not one per request.
      key.lastUsedAt = new Date();
      void this.keys.touch(key.id, key.lastUsedAt).catch(() => undefined);
    }
    return found;
  }

  /** True when the profile exists in the workspace (not deleted) and the key may reach it. */
  async canReachProfile(key: AuthKey, profileId: string): Promise<boolean> {
    if (!isUuid(profileId)) return false;
    if (key.profileIds && !key.profileIds.includes(profileId)) return false;
    return this.cache.get(
      `profile:${key.workspaceId}:${profileId}`,
      () => this.profiles.isLive(key.workspaceId, profileId),
      (exists) => exists,
    );
  }
}
