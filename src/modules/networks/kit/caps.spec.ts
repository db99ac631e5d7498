import { capReached, capsWithOverrides, PublishingCap, windowResetsAt, windowStart } from './caps';

const cap = (window: PublishingCap['window'], limit = 2): PublishingCap => ({
  name: 'posts',
  window,
  limit,
  scope: 'account',
  source: 'https://example.com',
});

describe('publishing caps (pure window arithmetic)', () => {
  it('should start a rolling window 24 hours back and reset it when its oldest post leaves', () => {
    const at = new Date('2026-11-24T15:00:00Z');
    expect(windowStart('rolling_24h', at).toISOString()).toBe('2026-11-23T15:00:00.000Z');
    expect(windowResetsAt('rolling_24h', at, new Date('2026-11-24T01:30:00Z'))?.toISOString()).toBe(
      '2026-11-25T01:30:00.000Z',
    );
    expect(windowResetsAt('rolling_24h', at, null)).toBeNull();
  });

  it('should cut calendar windows at midnight UTC or Pacific time, daylight saving included', () => {
    const at = new Date('2026-11-24T05:00:00Z'); // 21:00 on the 23rd in Los Angeles (PST, UTC-8)
    expect(windowStart('day_utc', at).toISOString()).toBe('2026-11-24T00:00:00.000Z');
    expect(windowResetsAt('day_utc', at, null)?.toISOString()).toBe('2026-11-25T00:00:00.000Z');
    expect(windowStart('day_pacific', at).toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect(windowResetsAt('day_pacific', at, null)?.toISOString()).toBe('2026-11-24T08:00:00.000Z');
    // In July Los Angeles is on PDT (UTC-7).
    expect(windowStart('day_pacific', new Date('2026-07-10T12:00:00Z')).toISOString()).toBe('2026-07-10T07:00:00.000Z');
  });

  it('should count only the items inside the window, and apply NETWORK_CAPS overrides by name', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    const t = (iso: string) => Date.parse(iso);
    expect(capReached(cap('day_utc'), [t('2026-11-23T23:59:00Z'), t('2026-11-24T01:00:00Z')], now)).toBe(false);
    expect(capReached(cap('day_utc'), [t('2026-11-24T00:00:00Z'), t('2026-11-24T01:00:00Z')], now)).toBe(true);
    expect(capsWithOverrides('tiktok', [cap('day_utc', 15)], { 'tiktok.posts': 25 })[0].limit).toBe(25);
    expect(capsWithOverrides('tiktok', [cap('day_utc', 15)], { 'youtube.posts': 1 })[0].limit).toBe(15);
  });
});
