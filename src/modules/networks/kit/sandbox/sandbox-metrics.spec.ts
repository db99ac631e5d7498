import { daysBetween } from '../days';
import { dailyAccountMetrics, itemComments, itemMetrics } from './sandbox-metrics';

describe('sandbox metrics', () => {
  it('should give the same numbers for the same account and date', () => {
    expect(dailyAccountMetrics('acc-1', '2026-03-01')).toEqual(dailyAccountMetrics('acc-1', '2026-03-01'));
    expect(dailyAccountMetrics('acc-1', '2026-03-01')).not.toEqual(dailyAccountMetrics('acc-2', '2026-03-01'));
  });

  it('should keep reach ≤ views, engagement ≤ reach and followers growing', () => {
    for (const date of daysBetween('2026-02-25', '2026-03-05')) {
      const m = dailyAccountMetrics('acc-1', date);
      expect(m.reach).toBeLessThanOrEqual(m.views);
      expect(m.engagement).toBeLessThanOrEqual(m.reach);
      expect(m.shares).toBeLessThanOrEqual(m.engagement);
    }
    expect(dailyAccountMetrics('acc-1', '2026-03-02').followers).toBeGreaterThan(
      dailyAccountMetrics('acc-1', '2026-03-01').followers,
    );
  });

  it('should list inclusive date ranges', () => {
    expect(daysBetween('2026-02-27', '2026-03-01')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(daysBetween('2026-03-02', '2026-03-01')).toEqual([]);
  });

  it('should produce as many comments as the item metrics count, oldest first', () => {
    const m = itemMetrics('post-9');
    const comments = itemComments('post-9', '2026-03-01T10:00:00.000Z');
    expect(comments).toHaveLength(m.comments);
    expect(m.engagement).toBe(m.likes + m.comments + m.shares + m.saves);
    expect(comments[0].createdAt).toBe('2026-03-01T10:07:00.000Z');
    expect(itemComments('post-9', '2026-03-01T10:00:00.000Z')).toEqual(comments);
  });
});
