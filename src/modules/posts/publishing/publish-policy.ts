import type { EffectivePolicy } from '@/modules/policy/policy.service';
import type { PostTargetEntity } from '../entities/post-target.entity';
import type { PostEntity } from '../entities/post.entity';
import { STORED_PATHS } from '../post-shape';
import { findBlockedTerm } from '../services/post-validation.service';

/**
 * The profile's guardrails applied when a post goes out (the policy may have changed since it was
 * scheduled, queued or approved): the rule a target breaks, as the target's error, or null.
 * Only targets not yet sent are refused; one already under way is settled as usual.
 */
export function policyViolation(
  policy: Pick<EffectivePolicy, 'allowedPlatforms' | 'blockedTerms'>,
  post: Pick<PostEntity, 'content'>,
  target: Pick<PostTargetEntity, 'platform' | 'accountId'>,
): string | null {
  const allowed = policy.allowedPlatforms;
  if (allowed && !allowed.includes(target.platform))
    return `Not sent: the profile's policy does not allow ${target.platform} (allowedPlatforms: ${allowed.join(', ') || 'none'}).`;
  const hit = findBlockedTerm(post.content, policy.blockedTerms, STORED_PATHS);
  if (hit)
    return `Not sent: ${hit.field} contains the blocked term '${hit.term}', which the profile's policy (blockedTerms) does not allow.`;
  return null;
}
