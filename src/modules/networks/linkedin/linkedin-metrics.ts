import type { AccountCredentials } from '../kit/adapter';
import { arr, num, obj } from '../kit/http';
import { addDays, dayOf, unixDay } from '../kit/days';
import { counterNames, Counters, dayRows, itemFromCounters } from '../kit/metrics';
import { enc, LinkedInClient, liDate } from './linkedin-api';

// Organisation pages: organizationalEntityShareStatistics and networkSizes. Members: memberCreatorPostAnalytics
// (one metric per call) and memberFollowersCount.

/** totalShareStatistics of an organisation's post (or day); its engagement counts clicks too. */
const SHARE_COUNTERS: Counters = {
  views: 'impressionCount',
  reach: 'uniqueImpressionsCount',
  likes: 'likeCount',
  comments: 'commentCount',
  shares: 'shareCount',
  engagement: ['likeCount', 'commentCount', 'shareCount', 'clickCount'],
};
/** memberCreatorPostAnalytics queryTypes; members' reach is only reported as a lifetime total (impressions stand in per day). */
const MEMBER_COUNTERS = { views: 'IMPRESSION', likes: 'REACTION', comments: 'COMMENT', shares: 'RESHARE' } as const;
const MEMBER_POST_COUNTERS: Counters = { ...MEMBER_COUNTERS, reach: 'MEMBERS_REACHED' };
const MEMBER_DAY_COUNTERS: Counters = { ...MEMBER_COUNTERS, reach: 'IMPRESSION' };

export const isOrganization = (urn: string): boolean => urn.startsWith('urn:li:organization:');

const orgStatistics = (urn: string, query: string): string =>
  `/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${enc(urn)}&${query}`;

export async function itemMetrics(client: LinkedInClient, account: AccountCredentials, postUrn: string) {
  // A post URN's Rest.li entity: (share:urn:li:share:1) or (ugcPost:urn:li:ugcPost:1).
  const entity = postUrn.startsWith('urn:li:ugcPost:') ? 'ugcPost' : 'share';
  const { accessToken: token, platformAccountId: urn } = account;
  if (isOrganization(urn)) {
    const body = await client.rest.json(token, orgStatistics(urn, `${entity}s=List(${enc(postUrn)})`));
    const s = obj(obj(arr(body.elements)[0]).totalShareStatistics);
    return itemFromCounters(SHARE_COUNTERS, (name) => num(s[name]));
  }
  const union = `(${entity}:${enc(postUrn)})`;
  const total = async (type: string): Promise<[string, number]> => {
    const path = `/memberCreatorPostAnalytics?q=entity&entity=${union}&queryType=${type}&aggregation=TOTAL`;
    return [type, num(obj(arr((await client.rest.json(token, path)).elements)[0]).count)];
  };
  const totals = new Map(await Promise.all(counterNames(MEMBER_POST_COUNTERS, 'item').map(total)));
  return itemFromCounters(MEMBER_POST_COUNTERS, (name) => totals.get(name) ?? 0);
}

function fromLiDate(raw: unknown): string {
  const d = obj(raw);
  return `${num(d.year)}-${String(num(d.month)).padStart(2, '0')}-${String(num(d.day)).padStart(2, '0')}`;
}

/** An account's days; LinkedIn reports the follower count as of now, not per day. */
export async function dailyMetrics(client: LinkedInClient, account: AccountCredentials, from: string, to: string) {
  const { accessToken: token, platformAccountId: urn } = account;
  if (!isOrganization(urn)) return memberDays(client, token, from, to);
  const [start, end] = [unixDay(from) * 1000, unixDay(to, 1) * 1000];
  const interval = `(timeRange:(start:${start},end:${end}),timeGranularityType:DAY)`;
  const [stats, size] = await Promise.all([
    client.rest.json(token, orgStatistics(urn, `timeIntervals=${interval}`)),
    client.rest.json(token, `/networkSizes/${enc(urn)}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`),
  ]);
  const byDay = new Map(arr(stats.elements).map((el) => [dayOf(num(obj(obj(el).timeRange).start)), obj(el)]));
  return dayRows({ from, to }, SHARE_COUNTERS, num(size.firstDegreeSize), (name, date) =>
    num(obj(byDay.get(date)?.totalShareStatistics)[name]),
  );
}

async function memberDays(client: LinkedInClient, token: string, from: string, to: string) {
  // Sending the day after `to` as the end reads the last day whether LinkedIn treats `end` as inclusive or not.
  const restli = ({ day, month, year }: ReturnType<typeof liDate>) => `(day:${day},month:${month},year:${year})`;
  const range = `(start:${restli(liDate(from))},end:${restli(liDate(addDays(to, 1)))})`;
  const daily = async (type: string): Promise<[string, Map<string, number>]> => {
    const path = `/memberCreatorPostAnalytics?q=me&queryType=${type}&aggregation=DAILY&dateRange=${range}`;
    const elements = arr((await client.rest.json(token, path)).elements).map(obj);
    return [type, new Map(elements.map((el) => [fromLiDate(obj(el.dateRange).start), num(el.count)]))];
  };
  const [series, count] = await Promise.all([
    Promise.all(counterNames(MEMBER_DAY_COUNTERS, 'day').map(daily)).then((s) => new Map(s)),
    client.rest.json(token, '/memberFollowersCount?q=me'),
  ]);
  const followers = num(obj(arr(count.elements)[0]).memberFollowersCount);
  return dayRows({ from, to }, MEMBER_DAY_COUNTERS, followers, (name, date) => series.get(name)?.get(date) ?? 0);
}
