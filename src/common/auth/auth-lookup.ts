import type { PlanName } from './plan-name';

/** What authentication reads of an API key. */
export interface AuthKey {
  id: string;
  workspaceId: string;
  permissions: string[];
  /** null = every profile of the workspace */
  profileIds: string[] | null;
  /** null = no restriction */
  accountIds: string[] | null;
  homeProfileId: string;
  ownerUserId: string | null;
  expiresAt: Date | null;
  maxPostsPerDay: number | null;
  rateLimitPerMinute: number | null;
  rateLimitPerHour: number | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** What authentication reads of the key's workspace. */
export interface AuthWorkspace {
  id: string;
  plan: PlanName;
  trialEndsAt: Date | null;
}

export interface AuthenticatedKey {
  key: AuthKey;
  workspace: AuthWorkspace;
}

/**
 * The tenancy lookups authentication needs, implemented by the modules that own the tables (keys,
 * profiles) and provided globally under these tokens: src/common never reads a module's tables.
 */
export interface KeyLookup {
  /** The key with this hash and its workspace (one query), or null. */
  byHash(hash: string): Promise<AuthenticatedKey | null>;
  /** Records the key's last use (best effort). */
  touch(keyId: string, at: Date): Promise<void>;
}
export const KEY_LOOKUP = Symbol('KeyLookup');

export interface ProfileLookup {
  /** True when the profile exists in the workspace and is not deleted. */
  isLive(workspaceId: string, profileId: string): Promise<boolean>;
}
export const PROFILE_LOOKUP = Symbol('ProfileLookup');
