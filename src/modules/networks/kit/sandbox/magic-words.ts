import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxStore } from './sandbox-store';
import { SandboxLostAnswer } from './sandbox-http';
import { currentPublishRun, loseAnswersOfRun } from './sandbox-run';

/**
 * Magic words in a post's text decide sandbox outcomes, like test card numbers: what each does is the table in the
 * top README ("The sandbox"). An outcome word applies to every target, or with `:<platform>` to that platform's only;
 * when several apply to one target, the first in the text wins.
 */
type OutcomeWord = keyof typeof FAILURES | (typeof OTHER_OUTCOMES)[number];

const SANDBOX_SLOW_MS = 2000;
/** How long `#sandbox-rate-limited` tells the client to wait (past the worker's in-run patience). */
export const SANDBOX_RATE_LIMIT_SECONDS = 3600;

/** The failing words: the outcome and what the simulator says, `… (#sandbox-<word>).` */
const FAILURES = {
  fail: ['invalid_content', (n: string) => `The ${n} sandbox rejected this post`],
  'invalid-content': ['invalid_content', (n: string) => `The ${n} sandbox rejected this post`],
  'auth-expired': ['auth_expired', (n: string) => `The ${n} sandbox no longer accepts this account's token`],
  'media-rejected': ['media_rejected', (n: string) => `The ${n} sandbox could not process the media of this post`],
  'rate-limited': ['rate_limited', (n: string) => `The ${n} sandbox's rate limit for this account is reached`],
} as const satisfies Record<string, readonly [MagicFailure, (network: string) => string]>;

const OTHER_OUTCOMES = ['unknown-outcome', 'flaky', 'transient'] as const;
const WORDS = [...Object.keys(FAILURES), ...OTHER_OUTCOMES, 'slow', 'review'];
const WORD = new RegExp(`(^|[^\\w-])#sandbox-(${WORDS.join('|')})(?::([a-z]+))?(?![\\w-])`, 'gi');

/** The magic words of a text: its outcome words in text order (`platform` null = every platform), slow and review. */
export function parseMagicWords(text: string | null | undefined) {
  const outcomes: { word: OutcomeWord; platform: string | null }[] = [];
  const out = { outcomes, slow: false, review: false };
  for (const m of (text ?? '').matchAll(WORD)) {
    const kind = m[2].toLowerCase();
    if (kind === 'slow') out.slow = true;
    else if (kind === 'review') out.review = true;
    else out.outcomes.push({ word: kind as OutcomeWord, platform: m[3]?.toLowerCase() ?? null });
  }
  return out;
}

type MagicWords = ReturnType<typeof parseMagicWords>;

/** The outcome word that applies to a target on `platform` (the first one in the text), if any. */
export function outcomeFor(words: MagicWords, platform: string): OutcomeWord | null {
  return words.outcomes.find((o) => o.platform === null || o.platform === platform)?.word ?? null;
}

/** What a simulator must answer instead of doing the publish. */
export type MagicFailure = 'invalid_content' | 'auth_expired' | 'media_rejected' | 'rate_limited' | 'transient';
export type MagicOutcome = { kind: 'ok' } | { kind: MagicFailure; message: string } | { kind: 'lost' };

/** A network's own errors for the outcomes the magic words force (its error format, status and code). */
export type MagicErrors = Record<MagicFailure, (message: string) => Error>;

export interface PublishAttempt {
  platform: string;
  accountId: string;
  text: string | null | undefined;
  /** Anything else that identifies the content (media URLs, link); part of the transient key. */
  contentKey?: string;
}

/**
 * How one publish call must end (after ~2 s for #sandbox-slow). Without a publish run (an adapter used directly)
 * #sandbox-flaky acts as #sandbox-transient, whose failures are counted in Redis per account and content, so that
 * a retry from any process succeeds.
 */
export async function applyMagicWords(store: SandboxStore, attempt: PublishAttempt): Promise<MagicOutcome> {
  const words = parseMagicWords(attempt.text);
  if (words.slow) await sleep(SANDBOX_SLOW_MS);
  const word = outcomeFor(words, attempt.platform);
  if (word === null) return { kind: 'ok' };
  const failure = Object.hasOwn(FAILURES, word) ? FAILURES[word as keyof typeof FAILURES] : undefined;
  if (failure) return { kind: failure[0], message: `${failure[1](attempt.platform)} (#sandbox-${word}).` };
  if (word === 'unknown-outcome') return { kind: 'lost' };
  const run = currentPublishRun();
  if (word === 'flaky' && run) {
    const message = `The ${attempt.platform} sandbox is unavailable for this run (#sandbox-flaky).`;
    return run.run > 1 ? { kind: 'ok' } : { kind: 'transient', message };
  }
  return transientOnce(store, attempt, word);
}

/** applyMagicWords: throws the network's error for a failure, drops the connection for a lost answer. */
export async function enforceMagicWords(
  store: SandboxStore,
  attempt: PublishAttempt,
  errors: MagicErrors,
  /** 'later': this call does not create the item (an upload session); the simulator calls loseAnswer when it does. */
  lostAnswer: 'here' | 'later' = 'here',
): Promise<void> {
  const outcome = await applyMagicWords(store, attempt);
  if (outcome.kind === 'ok') return;
  if (outcome.kind === 'lost') return lostAnswer === 'here' ? loseAnswer(store) : undefined;
  throw errors[outcome.kind](outcome.message);
}

export function losesAnswer(text: string | null | undefined, platform: string): boolean {
  return outcomeFor(parseMagicWords(text), platform) === 'unknown-outcome';
}

/** Drops the connection of this call; the look-ups of the same publish run fail too. */
export async function loseAnswer(store: SandboxStore): Promise<never> {
  await loseAnswersOfRun(store);
  throw new SandboxLostAnswer();
}

async function transientOnce(store: SandboxStore, attempt: PublishAttempt, word: OutcomeWord): Promise<MagicOutcome> {
  const content = `${attempt.text ?? ''}\n${attempt.contentKey ?? ''}`;
  const digest = createHash('sha256').update(content).digest('hex').slice(0, 32);
  const n = await store.incr([word, attempt.platform, attempt.accountId, digest]);
  const message = `The ${attempt.platform} sandbox is temporarily unavailable (#sandbox-${word}); retry.`;
  return n > 1 ? { kind: 'ok' } : { kind: 'transient', message };
}
