import { EntityManager } from 'typeorm';
import { ApiError } from '@/common/errors/api-error';
import { preparedQuery } from '@/database/plain-query';
import { PLANS, PlanName } from '@/modules/plans/plans';
import { assertDailyCap } from '../post-rules';

/** The caller's two counters: posts of the workspace this UTC month, of the key this UTC day. */
export interface PostUsage {
  month: number;
  day: number;
}

interface Caller {
  plan: PlanName;
  workspaceId: string;
  keyId: string;
  maxPostsPerDay: number | null;
}

/**
 * Reads the post_usage rows (kept by triggers on posts, see migration PostUsage) for this
 * transaction's month and day: `now()` is the transaction's start, which is also the created_at
 * of a post it inserts, so the periods are the ones its insert counts in.
 */
export async function readPostUsage(m: EntityManager, c: Caller): Promise<PostUsage> {
  const { rows } = await preparedQuery<PostUsage>(m, `SELECT ${postUsageSql('$1', '$2')}`, [c.workspaceId, c.keyId]);
  return rows[0] ?? { month: 0, day: 0 };
}

/** readPostUsage's two columns (`month`, `day`) for a statement of the caller's; the ids are SQL expressions. */
export function postUsageSql(workspaceId: string, keyId: string): string {
  return `coalesce((SELECT n FROM post_usage WHERE subject = ${workspaceId} AND period = 'month:' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')), 0)::int AS month,
       coalesce((SELECT n FROM post_usage WHERE subject = ${keyId} AND period = 'day:' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')), 0)::int AS day`;
}

/** plan_limit when `adding` more posts would pass the plan's monthly quota. */
export function assertMonthlyQuota(c: Caller, used: number, adding = 1): void {
  const limit = PLANS[c.plan].quotas.posts_per_month;
  if (limit === null || used + adding <= limit) return;
  throw new ApiError('plan_limit', `The ${c.plan} plan allows ${limit} posts per month.`, {
    entitlement: 'posts_per_month',
    usage: used,
    limit,
  });
}

/** True when a cap applies to the caller (the creation must then re-check after its insert). */
export function hasPostCaps(c: Caller): boolean {
  return PLANS[c.plan].quotas.posts_per_month !== null || c.maxPostsPerDay !== null;
}

/**
 * After the post's insert: its trigger has added it to both counters, holding their rows until
 * commit, so concurrent creations of the workspace (or key) queue only from here to their
 * commit, and each reads a count that includes every committed and its own post. Over a cap:
 * the same answer as the early check, and the transaction rolls back.
 */
export async function assertCapsAfterInsert(m: EntityManager, c: Caller, now: Date): Promise<void> {
  if (!hasPostCaps(c)) return;
  const usage = await readPostUsage(m, c);
  assertMonthlyQuota(c, usage.month - 1);
  if (c.maxPostsPerDay !== null) assertDailyCap(c.maxPostsPerDay, usage.day - 1, now);
}
