import type { EntityManager } from 'typeorm';
import { displayPrefix, generateApiKey, hashApiKey } from '@/common/auth/api-key-secret';
import { Actor, EventEntity } from '@/common/outbox/event.entity';
import { ApiKeyEntity } from './api-key.entity';

export interface IssueApiKeyInput {
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
  /** The key that made it (API); null for the operator CLI and workspace bootstrap. */
  createdByKeyId?: string | null;
}

export interface IssuedApiKey {
  entity: ApiKeyEntity;
  /** The key itself (`svc_live_…`): returned once, only its hash is stored. */
  secret: string;
}

/** The `api_key.created` audit payload: the key's stored attributes (never its hash or secret). */
export function apiKeyAuditView(k: ApiKeyEntity): Record<string, unknown> {
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
    rateLimitPerMinute: k.rateLimitPerMinute,
    rateLimitPerHour: k.rateLimitPerHour,
    createdByKeyId: k.createdByKeyId,
    createdAt: k.createdAt.toISOString(),
  };
}

/**
 * The one way a key is made (API, operator CLI, workspace bootstrap): the row and its
 * `api_key.created` audit event, in the caller's transaction. Callers check what the maker may
 * grant before calling (KeysService for keys made by keys; the operator is trusted).
 */
export async function issueApiKey(
  m: EntityManager,
  input: IssueApiKeyInput,
  audit: { actor: Actor; profileId: string },
): Promise<IssuedApiKey> {
  const secret = generateApiKey();
  const entity = await m.save(
    m.create(ApiKeyEntity, {
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
      lastUsedAt: null,
      revokedAt: null,
    }),
  );
  await m.save(
    m.create(EventEntity, {
      workspaceId: input.workspaceId,
      profileId: audit.profileId,
      type: 'api_key.created',
      actor: audit.actor,
      data: { profileId: audit.profileId, apiKey: apiKeyAuditView(entity) },
      dispatchedAt: null,
    }),
  );
  return { entity, secret };
}
