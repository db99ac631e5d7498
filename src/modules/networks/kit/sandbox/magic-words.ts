import { createHash } from 'node:crypto';
import type { SandboxStore } from './sandbox-store';
import { sleep } from './sandbox-http';

/**
 * Magic words in a post's text decide sandbox outcomes (like test card numbers):
 *   #sandbox-fail             every target fails with a platform error
 *   #sandbox-fail:<platform>  targets on that platform fail
 *   #sandbox-flaky:<platform> that platform fails the first publish of an account+content, then succeeds
 *   #sandbox-slow             each publish call takes ~2 s
 *   #sandbox-review           the network's processing after the upload (TikTok moderation, an
 *                             Instagram video container) takes SANDBOX_REVIEW_MS (default 3 min)
 */
export interface MagicWords {
  failAll: boolean;
  failPlatforms: string[];
  flakyPlatforms: string[];
  slow: boolean;
  review: boolean;
}

export const SANDBOX_SLOW_MS = 2000;

const WORD = /(^|[^\w-])#sandbox-(fail|flaky|slow|review)(?::([a-z]+))?(?![\w-])/gi;

export function parseMagicWords(text: string | null | undefined): MagicWords {
  const out: MagicWords = {
    failAll: false,
    failPlatforms: [],
    flakyPlatforms: [],
    slow: false,
    review: false,
  };
  for (const m of (text ?? '').matchAll(WORD)) {
    const kind = m[2].toLowerCase();
    const platform = m[3]?.toLowerCase();
    if (kind === 'slow') out.slow = true;
    else if (kind === 'review') out.review = true;
    else if (kind === 'fail' && !platform) out.failAll = true;
    else if (kind === 'fail' && platform) out.failPlatforms.push(platform);
    else if (kind === 'flaky' && platform) out.flakyPlatforms.push(platform);
  }
  return out;
}

export type MagicOutcome = { kind: 'ok' } | { kind: 'fail'; message: string } | { kind: 'flaky'; message: string };

export interface PublishAttempt {
  platform: string;
  accountId: string;
  text: string | null | undefined;
  /** Anything else that identifies the content (media URLs, link); part of the flaky key. */
  contentKey?: string;
}

/**
 * Applies the magic words to one publish call of a simulator: sleeps for #sandbox-slow, then
 * says whether the call must fail. Flaky attempts are counted in Redis per account+content,
 * so a retry (any process) succeeds.
 */
export async function applyMagicWords(store: SandboxStore, attempt: PublishAttempt): Promise<MagicOutcome> {
  const words = parseMagicWords(attempt.text);
  if (words.slow) await sleep(SANDBOX_SLOW_MS);
  if (words.failAll || words.failPlatforms.includes(attempt.platform)) {
    return { kind: 'fail', message: `The ${attempt.platform} sandbox rejected this post (#sandbox-fail).` };
  }
  if (words.flakyPlatforms.includes(attempt.platform)) {
    const digest = createHash('sha256')
      .update(`${attempt.text ?? ''}\n${attempt.contentKey ?? ''}`)
      .digest('hex')
      .slice(0, 32);
    const n = await store.incr(['flaky', attempt.platform, attempt.accountId, digest]);
    if (n === 1)
      return {
        kind: 'flaky',
        message: `The ${attempt.platform} sandbox is temporarily unavailable (#sandbox-flaky); retry.`,
      };
  }
  return { kind: 'ok' };
}

/** A network's own errors for the outcomes the magic words force (its error format, status and code). */
export type MagicErrors = Record<Exclude<MagicOutcome['kind'], 'ok'>, (message: string) => Error>;

/** applyMagicWords, throwing the network's error when the call must fail. */
export async function enforceMagicWords(
  store: SandboxStore,
  attempt: PublishAttempt,
  errors: MagicErrors,
): Promise<void> {
  const outcome = await applyMagicWords(store, attempt);
  if (outcome.kind !== 'ok') throw errors[outcome.kind](outcome.message);
}
