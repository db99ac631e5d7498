import { PlatformError, PublishResult } from '@/modules/networks/kit/adapter';
import type { ErrorCategory } from '@/modules/networks/kit/adapter';
import type { PostTargetEntity } from '../entities/post-target.entity';
import type { PostState } from '../entities/post.entity';

/** How hard one attempt tries a target before recording a failure. */
export interface RetryPolicy {
  /** Publish calls per attempt (first call included). */
  tries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A network asking to wait longer than this fails the target now instead of holding a worker. */
  retryAfterCapMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  tries: 3,
  baseDelayMs: 1000,
  maxDelayMs: 10_000,
  retryAfterCapMs: 30_000,
};

/** A target waits on the network's processing at most this long, then fails as unknown_outcome. */
export const WAITING_LIMIT_MS = 24 * 3_600_000;
/** Longest pause between two follow-up checks of a target waiting on the network. */
export const MAX_CHECK_DELAY_MS = 15 * 60_000;

/** Delay before follow-up check number `checksMade + 1`: base, doubling, at most 15 minutes. */
export function nextCheckDelayMs(checksMade: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.min(checksMade, 20), MAX_CHECK_DELAY_MS);
}

/** What to do after a publish (or credentials) call threw. */
export type ErrorDecision =
  | { kind: 'retry'; delayMs: number }
  /** The item may or may not exist on the network: look for it before anything else. */
  | { kind: 'check'; message: string }
  | { kind: 'fail'; category: ErrorCategory; message: string };

export function asPlatformError(err: unknown): PlatformError | null {
  if (err instanceof PlatformError) return err;
  // A PlatformError from another copy of the module still carries its shape.
  if (
    err instanceof Error &&
    err.name === 'PlatformError' &&
    typeof (err as Partial<PlatformError>).category === 'string'
  )
    return err as PlatformError;
  return null;
}

/**
 * Classifies a failed network call. `triesMade` counts calls already made in this attempt
 * (1 after the first). Anything that is not a PlatformError (a bug, a dropped socket the
 * adapter did not classify) is treated as an unknown outcome: the request may have landed.
 */
export function decideAfterError(
  err: unknown,
  triesMade: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): ErrorDecision {
  const pe = asPlatformError(err);
  if (!pe)
    return {
      kind: 'check',
      message: err instanceof Error ? err.message : String(err),
    };
  if (pe.category === 'unknown_outcome') return { kind: 'check', message: pe.message };
  const fail: ErrorDecision = {
    kind: 'fail',
    category: pe.category,
    message: pe.message,
  };
  if (!pe.retryable || triesMade >= policy.tries) return fail;
  const retryAfterMs =
    pe.details.retryAfterSeconds !== undefined ? Math.max(0, pe.details.retryAfterSeconds * 1000) : undefined;
  if (retryAfterMs !== undefined)
    return retryAfterMs > policy.retryAfterCapMs ? fail : { kind: 'retry', delayMs: retryAfterMs };
  const exp = Math.min(policy.baseDelayMs * 2 ** (triesMade - 1), policy.maxDelayMs);
  // ±20 % jitter so targets of many posts do not retry in lockstep.
  return { kind: 'retry', delayMs: Math.round(exp * (0.8 + 0.4 * random())) };
}

/** What an unknown outcome resolves to once the network was asked (`findPublished`). */
export type LookupDecision =
  | { kind: 'success'; result: PublishResult }
  | { kind: 'republish' }
  | { kind: 'fail'; category: 'unknown_outcome'; message: string };

export function decideAfterLookup(found: PublishResult | null | 'unknown', cause?: string): LookupDecision {
  if (found === 'unknown')
    return {
      kind: 'fail',
      category: 'unknown_outcome',
      message: unknownOutcomeMessage(cause),
    };
  if (found === null) return { kind: 'republish' };
  return { kind: 'success', result: found };
}

export function unknownOutcomeMessage(cause?: string): string {
  const base =
    'The outcome of the publish request is unknown: the network could not confirm whether the item was published, so it was not sent again to avoid a duplicate. Check the account and retry if it is missing.';
  return cause ? `${base} (${cause})` : base;
}

/** The post's final state from its targets' results. */
export function finalPostState(
  targets: Pick<PostTargetEntity, 'status'>[],
): Extract<PostState, 'published' | 'partially_published' | 'failed'> {
  const ok = targets.filter((t) => t.status === 'success').length;
  if (ok === 0) return 'failed';
  return ok === targets.length ? 'published' : 'partially_published';
}
