import { applyMagicWords, parseMagicWords } from './magic-words';
import type { SandboxStore } from './sandbox-store';

describe('parseMagicWords', () => {
  it('should find nothing in ordinary text', () => {
    expect(parseMagicWords('Hello #sandbox world #sandboxes')).toEqual({
      failAll: false,
      failPlatforms: [],
      flakyPlatforms: [],
      slow: false,
      review: false,
    });
    expect(parseMagicWords(null).failAll).toBe(false);
  });

  it('should read a bare #sandbox-fail as failing every platform', () => {
    expect(parseMagicWords('Launch day #sandbox-fail').failAll).toBe(true);
  });

  it('should read platform-scoped fail and flaky words, case-insensitively', () => {
    const w = parseMagicWords('#Sandbox-Fail:Facebook and #sandbox-flaky:instagram, #sandbox-flaky:threads.');
    expect(w).toEqual({
      failAll: false,
      failPlatforms: ['facebook'],
      flakyPlatforms: ['instagram', 'threads'],
      slow: false,
      review: false,
    });
  });

  it('should read #sandbox-slow', () => {
    expect(parseMagicWords('wait for it #sandbox-slow').slow).toBe(true);
    expect(parseMagicWords('under review #Sandbox-Review').review).toBe(true);
    expect(parseMagicWords('#sandbox-reviewed').review).toBe(false);
  });

  it('should not match words glued to other characters', () => {
    expect(parseMagicWords('x#sandbox-fail #sandbox-failure #sandbox-slowly').failAll).toBe(false);
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
    expect((await applyMagicWords(store, { ...attempt, platform: 'facebook' })).kind).toBe('fail');
    expect((await applyMagicWords(store, { ...attempt, platform: 'threads' })).kind).toBe('ok');
  });

  it('should fail a flaky platform on the first attempt of an account+content and succeed on the retry', async () => {
    const attempt = { platform: 'instagram', accountId: 'a1', text: 'hi #sandbox-flaky:instagram', contentKey: 'img1' };
    expect((await applyMagicWords(store, attempt)).kind).toBe('flaky');
    expect((await applyMagicWords(store, attempt)).kind).toBe('ok');
    expect((await applyMagicWords(store, { ...attempt, accountId: 'a2' })).kind).toBe('flaky');
  });
});
