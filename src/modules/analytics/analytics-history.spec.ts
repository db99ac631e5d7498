import { ApiError } from '@/common/errors/api-error';
import { addDays, daysInclusive, isCalendarDate } from './analytics-dates';
import { buildHistory, compare, DailyPlatformRow, engagementRate } from './analytics-history';
import { resolveRange } from './analytics-history.service';

const NOW = new Date('2026-03-29T15:00:00Z');

function rejects(fn: () => unknown, field: string): void {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe('invalid_request');
  expect((err as ApiError<'invalid_request'>).details?.field).toBe(field);
}

describe('analytics dates', () => {
  it('should count days inclusively and refuse impossible dates', () => {
    expect(daysInclusive('2026-03-01', '2026-03-01')).toBe(1);
    expect(daysInclusive('2024-02-28', '2024-03-01')).toBe(3);
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(isCalendarDate('2026-02-28')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-3-1')).toBe(false);
  });
});

describe('resolveRange', () => {
  it('should default to 28 days ago through today, with the previous period just before', () => {
    expect(resolveRange({}, NOW)).toEqual({
      from: '2026-03-01',
      to: '2026-03-29',
      previousFrom: '2026-01-31',
      previousTo: '2026-02-28',
    });
  });

  it('should make the previous period as long as the range', () => {
    expect(resolveRange({ from: '2026-03-10', to: '2026-03-16' }, NOW)).toEqual({
      from: '2026-03-10',
      to: '2026-03-16',
      previousFrom: '2026-03-03',
      previousTo: '2026-03-09',
    });
    expect(resolveRange({ from: '2026-03-10', to: '2026-03-10' }, NOW)).toMatchObject({
      previousFrom: '2026-03-09',
      previousTo: '2026-03-09',
    });
  });

  it('should refuse from after to, more than 366 days and malformed dates', () => {
    rejects(() => resolveRange({ from: '2026-03-11', to: '2026-03-10' }, NOW), 'from');
    expect(resolveRange({ from: '2025-03-29', to: '2026-03-29' }, NOW).from).toBe('2025-03-29'); // 366 days
    rejects(() => resolveRange({ from: '2025-03-28', to: '2026-03-29' }, NOW), 'to');
    rejects(() => resolveRange({ from: '2026-02-30' }, NOW), 'from');
    rejects(() => resolveRange({ to: '29/03/2026' }, NOW), 'to');
  });
});

describe('buildHistory', () => {
  const row = (date: string, platform: DailyPlatformRow['platform'], n: number): DailyPlatformRow => ({
    date,
    platform,
    views: n * 10,
    engagement: n,
    shares: n,
    reach: n * 5,
    followers: 1000 + n,
  });
  const range = { from: '2026-03-03', to: '2026-03-04', previousFrom: '2026-03-01', previousTo: '2026-03-02' };

  it('should sum flows, take followers from the last values, and compare with the previous period', () => {
    const daily = [
      row('2026-03-01', 'facebook', 1),
      row('2026-03-02', 'facebook', 2),
      row('2026-03-03', 'facebook', 3),
      row('2026-03-03', 'threads', 5),
      row('2026-03-04', 'facebook', 4),
    ];
    const h = buildHistory(
      'p',
      range,
      daily,
      [
        { accountId: 'a', platform: 'facebook', current: true, followers: 1004 },
        { accountId: 'b', platform: 'threads', current: true, followers: 1005 },
        { accountId: 'a', platform: 'facebook', current: false, followers: 1002 },
      ],
      [],
    );
    expect(h.summary.views).toEqual({ value: 120, previousValue: 30, delta: 90, deltaPercent: 300 });
    expect(h.summary.followers).toEqual({ value: 2009, previousValue: 1002, delta: 1007, deltaPercent: 100.5 });
    expect(h.summary.engagementRate).toEqual({ value: 20, previousValue: 20, delta: 0, deltaPercent: 0 });
    expect(h.snapshotDays).toBe(2);
    expect(h.timeseries).toEqual([
      { date: '2026-03-03', views: 80, engagement: 8, shares: 8, reach: 40, followers: 2008, engagementRate: 20 },
      { date: '2026-03-04', views: 40, engagement: 4, shares: 4, reach: 20, followers: 1004, engagementRate: 20 },
    ]);
    expect(h.timeseriesByPlatform.threads).toEqual([
      { date: '2026-03-03', views: 50, engagement: 5, shares: 5, reach: 25, followers: 1005, engagementRate: 20 },
      { date: '2026-03-04', views: 0, engagement: 0, shares: 0, reach: 0, followers: null, engagementRate: 0 },
    ]);
    expect(h.platforms.map((p) => [p.platform, p.engagement, p.accounts, p.engagementShare])).toEqual([
      ['facebook', 7, 1, 58.33],
      ['threads', 5, 1, 41.67],
    ]);
    expect(h.insights.map((i) => i.type)).toEqual([
      'engagement_trend',
      'views_trend',
      'follower_growth',
      'best_day',
      'top_platform',
    ]);
  });

  it('should take deltaPercent from the rounded delta, so two-decimal rates on a half-cent edge round half up', () => {
    // 6.6 − 6.4 is 0.1999…93 in floating point: from the raw difference 3.125% would round down to 3.12.
    expect(compare(6.6, 6.4)).toEqual({ value: 6.6, previousValue: 6.4, delta: 0.2, deltaPercent: 3.13 });
  });

  it('should give deltaPercent null when the previous value is 0, and say when there is no history', () => {
    expect(compare(5, 0)).toEqual({ value: 5, previousValue: 0, delta: 5, deltaPercent: null });
    expect(engagementRate(3, 0)).toBe(0);
    const empty = buildHistory('p', range, [], [], []);
    expect(empty).toMatchObject({ hasHistory: false, snapshotDays: 0, platforms: [], timeseriesByPlatform: {} });
    expect(empty.timeseries).toHaveLength(2);
    expect(empty.summary.views.deltaPercent).toBeNull();
    expect(empty.insights.map((i) => i.type)).toEqual(['no_history']);
  });
});
