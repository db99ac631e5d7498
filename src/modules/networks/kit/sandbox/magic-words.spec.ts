import { applyMagicWords, outcomeFor, parseMagicWords } from './magic-words';
import type { SandboxStore } from './sandbox-store';

describe('parseMagicWords', () => {
  it('should find nothing in ordinary text', () => {
    expect(parseMagicWords('Hello #sandbox world #sandboxes')).toEqual({ outcomes: [], slow: false, review: false });
    expect(parseMagicWords(null).outcomes).toEqual([]);
  });

  it('should read a bare #sandbox-fail as failing every platform', () => {
    expect(parseMagicWords('Launch day #sandbox-fail').outcomes).toEqual([{ word: 'fail', platform: null }]);
  });

  it('should read platform-scoped words, case-insensitively, in text order', () => {
    const w = parseMagicWords('#Sandbox-Fail:Facebook and #sandbox-flaky:instagram, #sandbox-transient:threads.');
    expect(w.outcomes).toEqual([
      { word: 'fail', platform: 'facebook' },
      { word: 'flaky', platform: 'instagram' },
      { word: 'transient', platform: 'threads' },
    ]);
  });

  it('should read one word per error category', () => {
    const text =
      '#sandbox-auth-expired:linkedin #sandbox-invalid-content #sandbox-media-rejected:tiktok ' +
      '#sandbox-rate-limited:youtube #sandbox-unknown-outcome:threads';
    expect(parseMagicWords(text).outcomes.map((o) => o.word)).toEqual([
      'auth-expired',
      'invalid-content',
      'media-rejected',
      'rate-limited',
      'unknown-outcome',
    ]);
  });

  it('should pick the first word that applies to a platform', () => {
    const w = parseMagicWords('#sandbox-rate-limited:youtube #sandbox-fail #sandbox-flaky:facebook');
    expect(outcomeFor(w, 'youtube')).toBe('rate-limited');
    expect(outcomeFor(w, 'facebook')).toBe('fail');
    expect(outcomeFor(parseMagicWords('#sandbox-slow'), 'facebook')).toBeNull();
  });

  it('should read #sandbox-slow and #sandbox-review', () => {
    expect(parseMagicWords('wait for it #sandbox-slow').slow).toBe(true);
    expect(parseMagicWords('under review #Sandbox-Review').review).toBe(true);
    expect(parseMagicWords('#sandbox-reviewed').review).toBe(false);
  });

  it('should not match words glued to other characters', () => {
    expect(parseMagicWords('x#sandbox-fail #sandbox-failure #sandbox-slowly #sandbox-flaky-ish').outcomes).toEqual([]);
    expect(parseMagicWords('#sandbox-slowly').slow).toBe(false);
  });
});

describe('applyMagicWords', () => {
  const counters = new Map<string, number>();
  const store = {
    incr: async (parts: string[]) => {
      const k = parts.join(':');
      counters.set(k, (counters.get(k) ?? 0) + 1);
      return counters.get(k)!;
    },
  } as unknown as SandboxStore;

  it('should fail the named platform only', async () => {
    const attempt = { accountId: 'a1', text: 'hi #sandbox-fail:facebook' };
    expect((await applyMagicWords(store, { ...attempt, platform: 'facebook' })).kind).toBe('invalid_content');
    expect((await applyMagicWords(store, { ...attempt, platform: 'threads' })).kind).toBe('ok');
  });

  it('should give each error word its failure', async () => {
    const kind = async (word: string) =>
      (await applyMagicWords(store, { platform: 'tiktok', accountId: 'a1', text: `x #sandbox-${word}` })).kind;
    expect(await kind('auth-expired')).toBe('auth_expired');
    expect(await kind('invalid-content')).toBe('invalid_content');
    expect(await kind('media-rejected')).toBe('media_rejected');
    expect(await kind('rate-limited')).toBe('rate_limited');
    expect(await kind('unknown-outcome')).toBe('lost');
  });

  it('should fail a transient platform once per account+content and succeed on the next call', async () => {
    const attempt = {
      platform: 'instagram',
      accountId: 'a1',
      text: 'hi #sandbox-transient:instagram',
      contentKey: 'i',
    };
    expect((await applyMagicWords(store, attempt)).kind).toBe('transient');
    expect((await applyMagicWords(store, attempt)).kind).toBe('ok');
    expect((await applyMagicWords(store, { ...attempt, accountId: 'a2' })).kind).toBe('transient');
  });

  it('should behave as transient for #sandbox-flaky when the call names no publish run', async () => {
    const attempt = { platform: 'linkedin', accountId: 'a1', text: 'hi #sandbox-flaky:linkedin' };
    expect((await applyMagicWords(store, attempt)).kind).toBe('transient');
    expect((await applyMagicWords(store, attempt)).kind).toBe('ok');
  });
});
