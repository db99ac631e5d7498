import type { AuthContext } from '@/common/auth/auth-context';
import { ApiError } from '@/common/errors/api-error';
import type { EffectivePolicy } from '../policy/policy.service';
import type { PlatformName } from '@/modules/networks/platform-name';
import type { PostEntity } from './entities/post.entity';

/** Pure rules shared by creation, edits, publishing and approval. */

export interface AccountRef {
  id: string;
  platform: PlatformName;
  name: string;
}

export interface TargetSelection<A extends AccountRef = AccountRef> {
  /** Accounts the post will publish to, in request order. */
  chosen: A[];
  /** Requested ids outside the key's accountIds. */
  notAllowed: string[];
  /** Requested (allowed) ids that are not active accounts of the profile. */
  missing: string[];
  /** Whether the profile has any active account at all. */
  anyActive: boolean;
}

/** Matches requested ids against the profile's active accounts; null ids = every account the key may use. */
export function selectTargets<A extends AccountRef>(
  requested: string[] | null,
  active: A[],
  keyAccountIds: string[] | null,
): TargetSelection<A> {
  const usable = (id: string): boolean => !keyAccountIds || keyAccountIds.includes(id);
  if (requested === null)
    return { chosen: active.filter((a) => usable(a.id)), notAllowed: [], missing: [], anyActive: active.length > 0 };
  const ids = [...new Set(requested)];
  const byId = new Map(active.map((a) => [a.id, a]));
  const notAllowed = ids.filter((id) => !usable(id));
  const allowed = ids.filter(usable);
  return {
    chosen: allowed.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])),
    notAllowed,
    missing: allowed.filter((id) => !byId.has(id)),
    anyActive: active.length > 0,
  };
}

/** 403 account_not_allowed, then 403 platform_not_allowed. */
export function assertTargetsAllowed(
  selection: TargetSelection,
  policy: Pick<EffectivePolicy, 'allowedPlatforms'>,
): void {
  if (selection.notAllowed.length > 0) {
    throw new ApiError('account_not_allowed', `This API key may not use account(s) ${quote(selection.notAllowed)}.`, {
      accountIds: selection.notAllowed,
    });
  }
  const allowed = policy.allowedPlatforms;
  const refused = allowed ? selection.chosen.find((a) => !allowed.includes(a.platform)) : undefined;
  if (refused) {
    throw new ApiError(
      'platform_not_allowed',
      `The profile's policy does not allow ${refused.platform} (account '${refused.id}'); allowed: ${allowed!.join(', ') || 'none'}.`,
      {
        platform: refused.platform,
        accountId: refused.id,
      },
    );
  }
}

/** 404 no_accounts_connected, then 404 accounts_not_found (any requested id that did not match). */
export function assertTargetsFound(selection: TargetSelection, field: string): void {
  if (!selection.anyActive)
    throw new ApiError('no_accounts_connected', 'The profile has no connected accounts; connect one first.');
  if (selection.chosen.length === 0 && selection.missing.length === 0) {
    throw new ApiError(
      'accounts_not_found',
      'None of the connected accounts of this profile may be used by this API key.',
    );
  }
  if (selection.missing.length > 0) {
    const none = selection.chosen.length === 0;
    throw new ApiError(
      'accounts_not_found',
      none
        ? `None of the ${field} matched a connected account of this profile: ${quote(selection.missing)}.`
        : `${field} holds ids that are not connected accounts of this profile: ${quote(selection.missing)}.`,
      { field, missing: selection.missing },
    );
  }
}

/** Publishing (now, scheduled, retried) records a human actor: the key's owner. */
export function assertHumanActor(auth: Pick<AuthContext, 'ownerUserId'>): void {
  if (!auth.ownerUserId)
    throw new ApiError(
      'key_not_linked_to_user',
      'This API key has no owner; publishing or scheduling needs a key linked to a user.',
    );
}

/** Whether going live needs an approver first: the policy asks for review and the post has none yet. */
export function approvalNeeded(
  policy: Pick<EffectivePolicy, 'requireApproval'>,
  post?: Pick<PostEntity, 'approvedByUserId'>,
): boolean {
  return policy.requireApproval && !post?.approvedByUserId;
}

/** 403 approval_required when review is forced but nobody can approve. */
export function assertApproversExist(policy: Pick<EffectivePolicy, 'approverUserIds'>): void {
  if (policy.approverUserIds.length === 0) {
    throw new ApiError(
      'approval_required',
      "The profile's policy requires approval but names no approvers; add approverUserIds to the policy.",
    );
  }
}

export function startOfUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/** 403 daily_post_limit with limit, used and resetsAt (next midnight UTC). */
export function assertDailyCap(limit: number | null, used: number, now: Date): void {
  if (limit === null || used < limit) return;
  const resetsAt = new Date(startOfUtcDay(now).getTime() + 86_400_000).toISOString();
  throw new ApiError(
    'daily_post_limit',
    `This API key may create ${limit} post(s) per day and has created ${used} since 00:00 UTC; the limit resets at ${resetsAt}.`,
    { limit, used, resetsAt },
  );
}

function quote(ids: string[]): string {
  return ids.map((id) => `'${id}'`).join(', ');
}
