import type { AccountCredentials, DailyAccountMetrics, ItemMetrics } from '../kit/adapter';
import { arr, num, obj } from '../kit/http';
import { daysBetween } from '../kit/days';
import { enc, LinkedInClient } from './linkedin-api';

/**
 * Organisation pages: organizationalEntityShareStatistics (lifetime per post, or per day) and
 * networkSizes for followers. Members: memberCreatorPostAnalytics (one metric per call) and
 * memberFollowersCount.
 */

type MemberMetric = 'IMPRESSION' | 'MEMBERS_REACHED' | 'REACTION' | 'COMMENT' | 'RESHARE';

export const isOrganization = (urn: string): boolean => urn.startsWith('urn:li:organization:');

/** Rest.li entity union for a post URN: (share:urn:li:share:1) or (ugcPost:urn:li:ugcPost:1). */
function postEntity(postUrn: string): { key: 'shares' | 'ugcPosts'; union: string } {
  return postUrn.startsWith('urn:li:ugcPost:')
    ? { key: 'ugcPosts', union: `(ugcPost:${enc(postUrn)})` }
    : { key: 'shares', union: `(share:${enc(postUrn)})` };
}

function shareTotals(raw: unknown): {
  views: number;
  reach: number;
  likes: number;
  comments: number;
  shares: number;
  clicks: number;
} {
  const s = obj(obj(raw).totalShareStatistics);
  return {
    views: num(s.impressionCount),
    reach: num(s.uniqueImpressionsCount),
    likes: num(s.likeCount),
    comments: num(s.commentCount),
    shares: num(s.shareCount),
    clicks: num(s.clickCount),
  };
}

export async function itemMetrics(
  client: LinkedInClient,
  account: AccountCredentials,
  postUrn: string,
): Promise<ItemMetrics> {
  const entity = postEntity(postUrn);
  if (isOrganization(account.platformAccountId)) {
    const reply = await client.rest(
      account.accessToken,
      'GET',
      `/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${enc(account.platformAccountId)}&${entity.key}=List(${enc(postUrn)})`,
    );
    const t = shareTotals(arr(obj(reply.json).elements)[0]);
    return {
      views: t.views,
      likes: t.likes,
      comments: t.comments,
      shares: t.shares,
      reach: t.reach,
      engagement: t.likes + t.comments + t.shares + t.clicks,
    };
  }
  const metric = async (type: MemberMetric): Promise<number> => {
    const reply = await client.rest(
      account.accessToken,
      'GET',
      `/memberCreatorPostAnalytics?q=entity&entity=${entity.union}&queryType=${type}&aggregation=TOTAL`,
    );
    return num(obj(arr(obj(reply.json).elements)[0]).count);
  };
  const [views, reach, likes, comments, shares] = await Promise.all(
    (['IMPRESSION', 'MEMBERS_REACHED', 'REACTION', 'COMMENT', 'RESHARE'] as const).map(metric),
  );
  return { views, likes, comments, shares, reach, engagement: likes + comments + shares };
}

const DAY_MS = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function liDate(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return `(day:${d},month:${m},year:${y})`;
}

/** A date of LinkedIn's `{ day, month, year }` shape as YYYY-MM-DD. */
function fromLiDate(raw: unknown): string {
  const d = obj(raw);
  return `${num(d.year)}-${String(num(d.month)).padStart(2, '0')}-${String(num(d.day)).padStart(2, '0')}`;
}

export async function dailyMetrics(
  client: LinkedInClient,
  account: AccountCredentials,
  from: string,
  to: string,
): Promise<DailyAccountMetrics[]> {
  const days = daysBetween(from, to);
  const rows = new Map<string, DailyAccountMetrics>(
    days.map((date) => [date, { date, views: 0, engagement: 0, shares: 0, followers: 0, reach: 0 }]),
  );
  const token = account.accessToken;
  const urn = account.platformAccountId;
  let followers: number;
  if (isOrganization(urn)) {
    const start = Date.parse(`${from}T00:00:00Z`);
    const end = Date.parse(`${to}T00:00:00Z`) + DAY_MS;
    const interval = `(timeRange:(start:${start},end:${end}),timeGranularityType:DAY)`;
    const [stats, size] = await Promise.all([
      client.rest(
        token,
        'GET',
        `/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${enc(urn)}&timeIntervals=${interval}`,
      ),
      client.rest(token, 'GET', `/networkSizes/${enc(urn)}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`),
    ]);
    for (const el of arr(obj(stats.json).elements)) {
      const row = rows.get(dayOf(num(obj(obj(el).timeRange).start)));
      if (!row) continue;
      const t = shareTotals(el);
      Object.assign(row, {
        views: t.views,
        reach: t.reach,
        shares: t.shares,
        engagement: t.likes + t.comments + t.shares + t.clicks,
      });
    }
    followers = num(obj(size.json).firstDegreeSize);
  } else {
    // Sending the day after `to` as the end reads the last day whether LinkedIn treats `end` as inclusive or not.
    const range = `(start:${liDate(from)},end:${liDate(dayOf(Date.parse(`${to}T00:00:00Z`) + DAY_MS))})`;
    const daily = async (type: MemberMetric): Promise<Map<string, number>> => {
      const reply = await client.rest(
        token,
        'GET',
        `/memberCreatorPostAnalytics?q=me&queryType=${type}&aggregation=DAILY&dateRange=${range}`,
      );
      return new Map(
        arr(obj(reply.json).elements).map((el) => [fromLiDate(obj(obj(el).dateRange).start), num(obj(el).count)]),
      );
    };
    const [views, reactions, comments, reshares, count] = await Promise.all([
      daily('IMPRESSION'),
      daily('REACTION'),
      daily('COMMENT'),
      daily('RESHARE'),
      client.rest(token, 'GET', '/memberFollowersCount?q=me'),
    ]);
    for (const row of rows.values()) {
      const v = views.get(row.date) ?? 0;
      const sh = reshares.get(row.date) ?? 0;
      // Members' reach is only reported as a lifetime total; impressions stand in per day.
      Object.assign(row, {
        views: v,
        reach: v,
        shares: sh,
        engagement: (reactions.get(row.date) ?? 0) + (comments.get(row.date) ?? 0) + sh,
      });
    }
    followers = num(obj(arr(obj(count.json).elements)[0]).memberFollowersCount);
  }
  // LinkedIn reports the follower count as of now, not per day.
  for (const row of rows.values()) row.followers = followers;
  return [...rows.values()];
}
