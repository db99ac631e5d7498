import type { PlatformName } from '@/modules/networks/platform-name';
import { datesBetween } from './analytics-dates';
import type {
  AnalyticsHistoryDto,
  AnalyticsSummaryDto,
  DailyPointDto,
  InsightDto,
  MetricSummaryDto,
  PlatformTotalsDto,
  TopContentDto,
} from './dto/analytics.dto';

/**
 * The pure half of `GET /v1/analytics/history`: SQL aggregates in (analytics-history.service.ts),
 * the response out. Kept apart so the arithmetic has unit tests.
 */

export interface HistoryRange {
  from: string;
  to: string;
  previousFrom: string;
  previousTo: string;
}

/** One (day, network) aggregate over the profile's accounts. */
export interface DailyPlatformRow {
  date: string;
  platform: PlatformName;
  views: number;
  engagement: number;
  shares: number;
  reach: number;
  followers: number;
}

/** An account's followers on its last snapshot day within one period. */
export interface LastFollowersRow {
  accountId: string;
  platform: PlatformName;
  current: boolean;
  followers: number;
}

const FLOWS = ['views', 'engagement', 'shares', 'reach'] as const;
type Flow = (typeof FLOWS)[number];
type Totals = Record<Flow, number>;

export const round2 = (n: number): number => Math.round(n * 100) / 100;

/** engagement ÷ reach, in percent; 0 when there is no reach. */
export function engagementRate(engagement: number, reach: number): number {
  return reach > 0 ? round2((engagement / reach) * 100) : 0;
}

export function compare(value: number, previousValue: number): MetricSummaryDto {
  const delta = round2(value - previousValue);
  return {
    value,
    previousValue,
    delta,
    deltaPercent: previousValue === 0 ? null : round2((delta / previousValue) * 100),
  };
}

function totals(rows: DailyPlatformRow[]): Totals {
  const t: Totals = { views: 0, engagement: 0, shares: 0, reach: 0 };
  for (const r of rows) for (const k of FLOWS) t[k] += r[k];
  return t;
}

function point(date: string, rows: DailyPlatformRow[]): DailyPointDto {
  const t = totals(rows);
  return {
    date,
    ...t,
    followers: rows.length ? rows.reduce((s, r) => s + r.followers, 0) : null,
    engagementRate: engagementRate(t.engagement, t.reach),
  };
}

function series(dates: string[], rows: DailyPlatformRow[]): DailyPointDto[] {
  const byDate = new Map<string, DailyPlatformRow[]>();
  for (const r of rows) byDate.set(r.date, [...(byDate.get(r.date) ?? []), r]);
  return dates.map((d) => point(d, byDate.get(d) ?? []));
}

export function buildHistory(
  profileId: string,
  range: HistoryRange,
  daily: DailyPlatformRow[],
  lastFollowers: LastFollowersRow[],
  topContent: TopContentDto[],
): AnalyticsHistoryDto {
  const current = daily.filter((r) => r.date >= range.from && r.date <= range.to);
  const previous = daily.filter((r) => r.date >= range.previousFrom && r.date <= range.previousTo);
  const now = totals(current);
  const before = totals(previous);
  const followersOf = (isCurrent: boolean) =>
    lastFollowers.filter((f) => f.current === isCurrent).reduce((s, f) => s + f.followers, 0);
  const summary: AnalyticsSummaryDto = {
    views: compare(now.views, before.views),
    engagement: compare(now.engagement, before.engagement),
    shares: compare(now.shares, before.shares),
    followers: compare(followersOf(true), followersOf(false)),
    reach: compare(now.reach, before.reach),
    engagementRate: compare(engagementRate(now.engagement, now.reach), engagementRate(before.engagement, before.reach)),
  };
  const dates = datesBetween(range.from, range.to);
  const platformNames = [...new Set(current.map((r) => r.platform))].sort();
  const timeseriesByPlatform = Object.fromEntries(
    platformNames.map((p) => [
      p,
      series(
        dates,
        current.filter((r) => r.platform === p),
      ),
    ]),
  );
  const platforms: PlatformTotalsDto[] = platformNames
    .map((platform) => {
      const t = totals(current.filter((r) => r.platform === platform));
      const accounts = lastFollowers.filter((f) => f.current && f.platform === platform);
      return {
        platform,
        accounts: accounts.length,
        ...t,
        followers: accounts.reduce((s, f) => s + f.followers, 0),
        engagementRate: engagementRate(t.engagement, t.reach),
        engagementShare: now.engagement > 0 ? round2((t.engagement / now.engagement) * 100) : 0,
      };
    })
    .sort((a, b) => b.engagement - a.engagement || a.platform.localeCompare(b.platform));
  const timeseries = series(dates, current);
  const snapshotDays = new Set(current.map((r) => r.date)).size;
  return {
    profileId,
    ...range,
    snapshotDays,
    hasHistory: snapshotDays > 0,
    summary,
    timeseries,
    timeseriesByPlatform,
    platforms,
    topContent,
    insights: insights(range, snapshotDays, summary, timeseries, platforms, topContent),
  };
}

const fmt = (n: number): string => n.toLocaleString('en-US');
const LABELS: Record<PlatformName, string> = {
  facebook: 'Facebook',
  instagram: 'Instagram',
  linkedin: 'LinkedIn',
  tiktok: 'TikTok',
  youtube: 'YouTube',
  threads: 'Threads',
};

function trend(type: string, label: string, s: MetricSummaryDto, days: number): InsightDto | null {
  if (s.deltaPercent === null || s.delta === 0) return null;
  const dir = s.delta > 0 ? 'up' : 'down';
  return {
    type,
    value: s.deltaPercent,
    message: `${label} is ${dir} ${fmt(Math.abs(s.deltaPercent))}% on the previous ${days} days (${fmt(s.value)} vs ${fmt(s.previousValue)}).`,
  };
}

/** A few plain-language observations, most useful first. */
export function insights(
  range: HistoryRange,
  snapshotDays: number,
  summary: AnalyticsSummaryDto,
  timeseries: DailyPointDto[],
  platforms: PlatformTotalsDto[],
  top: TopContentDto[],
): InsightDto[] {
  if (snapshotDays === 0) {
    return [
      {
        type: 'no_history',
        value: null,
        message:
          'No snapshots cover this range yet. Snapshots are taken hourly; the first one after an account connects backfills up to 90 days where the network offers them.',
      },
    ];
  }
  const days = timeseries.length;
  const out: (InsightDto | null)[] = [
    trend('engagement_trend', 'Engagement', summary.engagement, days),
    trend('views_trend', 'Views', summary.views, days),
  ];
  const f = summary.followers;
  if (f.previousValue > 0 && f.delta !== 0) {
    out.push({
      type: 'follower_growth',
      value: f.delta,
      message: `You ${f.delta > 0 ? 'gained' : 'lost'} ${fmt(Math.abs(f.delta))} followers compared with the end of the previous period.`,
    });
  }
  const best = timeseries.reduce<DailyPointDto | null>((b, p) => (p.engagement > (b?.engagement ?? 0) ? p : b), null);
  if (best)
    out.push({
      type: 'best_day',
      value: best.engagement,
      date: best.date,
      message: `Your best day was ${best.date}, with ${fmt(best.engagement)} engagements.`,
    });
  const lead = platforms[0];
  if (lead && platforms.length > 1 && lead.engagement > 0) {
    out.push({
      type: 'top_platform',
      value: lead.engagementShare,
      platform: lead.platform,
      message: `${LABELS[lead.platform]} brought ${fmt(lead.engagementShare)}% of your engagement.`,
    });
  }
  const post = top[0];
  if (post && post.engagement > 0) {
    out.push({
      type: 'top_post',
      value: post.engagement,
      postId: post.postId,
      message: `Your top post since ${range.from} had ${fmt(post.engagement)} engagements across ${post.targets.length} network${post.targets.length === 1 ? '' : 's'}.`,
    });
  }
  return out.filter((i): i is InsightDto => i !== null);
}
