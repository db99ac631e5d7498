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

/** The counters' periods (SQL): this UTC month's and day's at the statement's transaction time. */
const MONTH = `'month:' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM')`;
const DAY = `'day:' || to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/** readPostUsage's two columns (`month`, `day`) for a statement of the caller's; the ids are SQL expressions. */
export function postUsageSql(workspaceId: string, keyId: string): string {
  return `coalesce((SELECT n FROM post_usage WHERE subject = ${workspaceId} AND period = ${MONTH}), 0)::int AS month,
       coalesce((SELECT n FROM post_usage WHERE subject = ${keyId} AND period = ${DAY}), 0)::int AS day`;
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

/** True when a cap applies to the caller (its creation must then check it where creations queue). */
export function hasPostCaps(c: Caller): boolean {
  return PLANS[c.plan].quotas.posts_per_month !== null || c.maxPostsPerDay !== null;
}

/** The caps a creation checks in its own insert statement (PostsRepository.insertCreated's `caps`). */
export interface PostCaps {
  workspaceId: string;
  keyId: string;
  /** The plan's posts per month; null: none. */
  monthly: number | null;
  /** The key's posts per day; null: none. */
  daily: number | null;
}

/** The caller's caps, or null when none applies (its creation checks nothing). */
export function postCapsOf(c: Caller): PostCaps | null {
  if (!hasPostCaps(c)) return null;
  return {
    workspaceId: c.workspaceId,
    keyId: c.keyId,
    monthly: PLANS[c.plan].quotas.posts_per_month,
    daily: c.maxPostsPerDay,
  };
}

/**
 * The caps as CTEs of the creation's own statement, for a creation outside a transaction:
 * `usage_rows` takes the capped counters' rows (created at 0 when missing) in the order the
 * posts trigger takes them, with the row lock an upsert takes, and answers their values, which
 * include every creation that committed before (a concurrent one holding a row is waited for, as
 * after the insert in a transaction); `usage` (month, day) is that count before this post, and
 * `passes` (SQL) holds when the post fits both caps. The post's insert selects from `usage` where
 * `passes`, and its trigger then adds it to the rows this statement already holds until it (or
 * its transaction) commits: the counters stay exact under concurrent creations.
 */
export function capsCtesSql(caps: PostCaps, bind: (value: unknown) => string): { ctes: string; passes: string } {
  const workspace = bind(caps.workspaceId);
  const key = bind(caps.keyId);
  const monthly = bind(caps.monthly);
  const daily = bind(caps.daily);
  const rows = [
    ...(caps.monthly !== null ? [`(${workspace}::uuid, ${MONTH})`] : []),
    ...(caps.daily !== null ? [`(${key}::uuid, ${DAY})`] : []),
  ];
  return {
    ctes: `usage_rows AS (
         INSERT INTO post_usage AS c (subject, period, n)
         SELECT r.subject, r.period, 0 FROM (VALUES ${rows.join(', ')}) AS r(subject, period) ORDER BY 1, 2
         ON CONFLICT (subject, period) DO UPDATE SET n = c.n
         RETURNING subject, period, n
       ), usage AS (
         SELECT coalesce((SELECT n FROM usage_rows WHERE subject = ${workspace}::uuid AND period = ${MONTH}), 0) AS month,
                coalesce((SELECT n FROM usage_rows WHERE subject = ${key}::uuid AND period = ${DAY}), 0) AS day
       )`,
    passes: `(${monthly}::int IS NULL OR usage.month < ${monthly}::int) AND (${daily}::int IS NULL OR usage.day < ${daily}::int)`,
  };
}

/** A creation its caps refused (`usage`: the counts before it, as capsCtesSql read them): the early check's errors. */
export function assertCapsRefusal(c: Caller, usage: PostUsage, now: Date): never {
  assertMonthlyQuota(c, usage.month);
  assertDailyCap(c.maxPostsPerDay, usage.day, now);
  throw new Error(`A creation refused within its caps (month ${usage.month}, day ${usage.day})`);
}
