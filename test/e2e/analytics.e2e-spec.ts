import { AnalyticsSnapshotService } from '@/modules/analytics/analytics-snapshot.service';
import type { PlatformName } from '@/modules/networks/platform-name';
import { daysBetween } from '@/modules/networks/kit/days';
import { dailyAccountMetrics, itemMetrics } from '@/modules/networks/kit/sandbox/sandbox-metrics';
import { connectThroughSandbox } from '@test/support/connect-flow';
import { publishPost } from '@test/support/post-fixtures';
import { accountsOf, targetsOf, waitForFinal } from '@test/support/publishing';
import { clearOfUtcMidnight, createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';
import { createKey } from '@test/support/e2e-helpers';

interface Account {
  id: string;
  platform: PlatformName;
  platformAccountId: string;
}

type Day = { views: number; reach: number; engagement: number; shares: number; followers: number };

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.parse(`${today()}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
const r2 = (n: number) => Math.round(n * 100) / 100;

/**
 * What each sandbox network's adapter reports for a day (see sandbox-meta.e2e-spec.ts): Threads
 * has no separate reach; Facebook's shares come from the Page's posts of that day (none here).
 */
function expectedDay(a: Account, date: string): Day {
  const d = dailyAccountMetrics(a.platformAccountId, date);
  if (a.platform === 'threads')
    return { views: d.views, reach: d.views, engagement: d.engagement, shares: d.shares, followers: d.followers };
  return { views: d.views, reach: d.reach, engagement: d.engagement, shares: 0, followers: d.followers };
}

function sum(accounts: Account[], from: string, to: string): Day {
  const out: Day = { views: 0, reach: 0, engagement: 0, shares: 0, followers: 0 };
  for (const a of accounts) {
    for (const date of daysBetween(from, to)) {
      const d = expectedDay(a, date);
      out.views += d.views;
      out.reach += d.reach;
      out.engagement += d.engagement;
      out.shares += d.shares;
    }
    out.followers += expectedDay(a, to).followers;
  }
  return out;
}

const metric = (value: number, previousValue: number) => ({
  value,
  previousValue,
  delta: r2(value - previousValue),
  // Of the rounded delta, as the API computes it (rates are two-decimal values: 6.6 − 6.4 is 0.2, not 0.1999…).
  deltaPercent: previousValue === 0 ? null : r2((r2(value - previousValue) / previousValue) * 100),
});
const rate = (d: Day) => (d.reach > 0 ? r2((d.engagement / d.reach) * 100) : 0);

describe('analytics (sandbox networks)', () => {
  // Its rows are written for the UTC days around the start, and read as of the days at each test:
  // the whole file runs within one UTC day (it takes well under the margin).
  beforeAll(() => clearOfUtcMidnight(150_000));
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let threads: Account;
  let facebook: Account;

  async function connect(who: Tenant, platform: PlatformName): Promise<Account> {
    const before = new Set((await accountsOf(t, who.profileId)).map((a) => a.id));
    await connectThroughSandbox(t, who, platform);
    const added = (await accountsOf(t, who.profileId)).find((a) => !before.has(a.id));
    if (!added) throw new Error(`connecting ${platform} added no account`);
    return { id: added.id, platform: added.platform, platformAccountId: added.platformAccountId };
  }

  const history = (query: Record<string, string>, who: Tenant = tenant) =>
    t.http().get('/v1/analytics/history').query(query).set(who.auth);

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    other = await createTenant(t);
    threads = await connect(tenant, 'threads');
    facebook = await connect(tenant, 'facebook');
    await t.app.get(AnalyticsSnapshotService).snapshotAll();
  });
  afterAll(async () => t.close());

  describe('snapshot-analytics job', () => {
    it('should backfill 90 days per account on the first run, then refresh yesterday and today only', async () => {
      const rows = await t.ds.query<{ account_id: string; n: number; first: string; last: string }[]>(
        `SELECT account_id, count(*)::int AS n, min(date)::text AS first, max(date)::text AS last FROM account_daily_metrics WHERE profile_id = $1 GROUP BY account_id ORDER BY account_id`,
        [tenant.profileId],
      );
      expect(rows).toHaveLength(2);
      for (const r of rows) expect(r).toMatchObject({ n: 90, first: daysAgo(89), last: today() });
      const [stored] = await t.ds.query<Day[]>(
        `SELECT views, reach, engagement, shares, followers FROM account_daily_metrics WHERE account_id = $1 AND date = $2`,
        [threads.id, daysAgo(40)],
      );
      expect(stored).toEqual(expectedDay(threads, daysAgo(40)));

      const again = await t.app.get(AnalyticsSnapshotService).snapshotAccount(threads.id);
      expect(again).toEqual({ days: 2, posts: 0, backfilled: false });
      const [{ n }] = await t.ds.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM account_daily_metrics WHERE profile_id = $1`,
        [tenant.profileId],
      );
      expect(n).toBe(180);
    });

    it('should backfill again after a reconnect (a new connection)', async () => {
      await t.ds.query(`DELETE FROM account_daily_metrics WHERE account_id = $1 AND date < $2`, [
        threads.id,
        daysAgo(10),
      ]);
      await t.ds.query(`UPDATE social_accounts SET connected_at = now() WHERE id = $1`, [threads.id]);
      expect(await t.app.get(AnalyticsSnapshotService).snapshotAccount(threads.id)).toMatchObject({
        days: 90,
        backfilled: true,
      });
    });
  });

  describe('GET /v1/analytics/history', () => {
    it('should sum the range exactly, compare with the same number of days before it, and break it down', async () => {
      const from = daysAgo(13);
      const to = daysAgo(7);
      const res = await history({ from, to }).expect(200);
      const body = res.body;
      expect(body).toMatchObject({
        profileId: tenant.profileId,
        from,
        to,
        previousFrom: daysAgo(20),
        previousTo: daysAgo(14),
        snapshotDays: 7,
        hasHistory: true,
      });

      const cur = sum([threads, facebook], from, to);
      const prev = sum([threads, facebook], daysAgo(20), daysAgo(14));
      expect(body.summary).toEqual({
        views: metric(cur.views, prev.views),
        engagement: metric(cur.engagement, prev.engagement),
        shares: metric(cur.shares, prev.shares),
        followers: metric(cur.followers, prev.followers),
        reach: metric(cur.reach, prev.reach),
        engagementRate: metric(rate(cur), rate(prev)),
      });

      expect(body.timeseries).toHaveLength(7);
      const day = daysAgo(10);
      const th = expectedDay(threads, day);
      const fb = expectedDay(facebook, day);
      expect(body.timeseries[3]).toEqual({
        date: day,
        views: th.views + fb.views,
        engagement: th.engagement + fb.engagement,
        shares: th.shares + fb.shares,
        reach: th.reach + fb.reach,
        followers: th.followers + fb.followers,
        engagementRate: r2(((th.engagement + fb.engagement) / (th.reach + fb.reach)) * 100),
      });
      expect(Object.keys(body.timeseriesByPlatform).sort()).toEqual(['facebook', 'threads']);
      expect(body.timeseriesByPlatform.threads[3]).toEqual({
        date: day,
        ...th,
        engagementRate: r2((th.engagement / th.reach) * 100),
      });

      const thTotals = sum([threads], from, to);
      const fbTotals = sum([facebook], from, to);
      expect(body.platforms).toHaveLength(2);
      expect(body.platforms.find((p: { platform: string }) => p.platform === 'threads')).toEqual({
        platform: 'threads',
        accounts: 1,
        views: thTotals.views,
        engagement: thTotals.engagement,
        shares: thTotals.shares,
        reach: thTotals.reach,
        followers: thTotals.followers,
        engagementRate: rate(thTotals),
        engagementShare: r2((thTotals.engagement / (thTotals.engagement + fbTotals.engagement)) * 100),
      });
      expect(body.platforms[0].engagement).toBeGreaterThanOrEqual(body.platforms[1].engagement);
      expect(body.topContent).toEqual([]);
      const types = (body.insights as { type: string; message: string }[]).map((i) => i.type);
      expect(types).toEqual(expect.arrayContaining(['best_day', 'top_platform']));
      for (const i of body.insights as { message: string }[]) expect(i.message.length).toBeGreaterThan(10);
    });

    it('should default to 28 days ago through today', async () => {
      const body = (await history({}).expect(200)).body;
      expect(body).toMatchObject({
        from: daysAgo(28),
        to: today(),
        previousFrom: daysAgo(57),
        previousTo: daysAgo(29),
        snapshotDays: 29,
      });
      expect(body.timeseries).toHaveLength(29);
      const views = [threads, facebook].reduce(
        (s, a) => s + daysBetween(daysAgo(28), today()).reduce((x, d) => x + expectedDay(a, d).views, 0),
        0,
      );
      expect(body.summary.views.value).toBe(views);
    });

    it('should give deltaPercent null when the previous period has no snapshots', async () => {
      const body = (await history({ from: daysAgo(89), to: daysAgo(80) }).expect(200)).body;
      expect(body).toMatchObject({ previousFrom: daysAgo(99), previousTo: daysAgo(90), snapshotDays: 10 });
      for (const key of ['views', 'engagement', 'shares', 'followers', 'reach', 'engagementRate']) {
        expect(body.summary[key].previousValue).toBe(0);
        expect(body.summary[key].deltaPercent).toBeNull();
        expect(body.summary[key].delta).toBe(body.summary[key].value);
      }
      expect(body.summary.followers.value).toBe(
        expectedDay(threads, daysAgo(80)).followers + expectedDay(facebook, daysAgo(80)).followers,
      );
    });

    it('should answer hasHistory false, with a full timeseries of zeros, for a range without snapshots', async () => {
      const body = (await history({ from: '2020-01-01', to: '2020-01-31' }).expect(200)).body;
      expect(body).toMatchObject({
        hasHistory: false,
        snapshotDays: 0,
        platforms: [],
        topContent: [],
        timeseriesByPlatform: {},
      });
      expect(body.timeseries).toHaveLength(31);
      expect(body.timeseries[0]).toEqual({
        date: '2020-01-01',
        views: 0,
        engagement: 0,
        shares: 0,
        reach: 0,
        followers: null,
        engagementRate: 0,
      });
      expect(body.insights.map((i: { type: string }) => i.type)).toEqual(['no_history']);
    });

    it('should answer 400 invalid_request for from after to, ranges over 366 days and malformed dates', async () => {
      const after = await history({ from: daysAgo(1), to: daysAgo(2) }).expect(400);
      expect(after.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'from' } });
      await history({ from: daysAgo(365), to: today() }).expect(200); // 366 days, both included
      const long = await history({ from: daysAgo(366), to: today() }).expect(400);
      expect(long.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'to' } });
      expect(long.body.error.message).toContain('366');
      expect((await history({ from: '2026-02-30' }).expect(400)).body.error.details.field).toBe('from');
      expect((await history({ to: 'today' }).expect(400)).body.error.details.field).toBe('to');
    });

    it('should answer 403 profile_not_accessible for a profile of another workspace, and see only its own profile', async () => {
      const res = await history({ profileId: other.profileId }).expect(403);
      expect(res.body.error.code).toBe('profile_not_accessible');
      const theirs = (await history({ from: daysAgo(13), to: daysAgo(7) }, other).expect(200)).body;
      expect(theirs).toMatchObject({ hasHistory: false, snapshotDays: 0 });
    });

    it('should answer 403 insufficient_permission without analytics:read, and keep to the accounts a key is restricted to', async () => {
      const noAnalytics = await createKey(t, tenant, { permissions: ['posts:read'] });
      const denied = await history({}, { ...tenant, auth: noAnalytics.auth }).expect(403);
      expect(denied.body.error).toMatchObject({
        code: 'insufficient_permission',
        details: { required: 'analytics:read' },
      });
      const onlyThreads = await createKey(t, tenant, { permissions: ['analytics:read'], accountIds: [threads.id] });
      const body = (
        await history({ from: daysAgo(13), to: daysAgo(7) }, { ...tenant, auth: onlyThreads.auth }).expect(200)
      ).body;
      expect(body.platforms.map((p: { platform: string }) => p.platform)).toEqual(['threads']);
      expect(body.summary.views.value).toBe(sum([threads], daysAgo(13), daysAgo(7)).views);
    });
  });

  describe('published posts: topContent and GET /v1/analytics', () => {
    let postId: string;
    let externalId: string;

    beforeAll(async () => {
      postId = await publishPost(t, tenant.auth, { content: `Analytics post ${Date.now()}`, accountIds: [threads.id] });
      expect(await waitForFinal(t, postId)).toBe('published');
      externalId = (await targetsOf(t, postId))[0].externalId!;
      await t.app.get(AnalyticsSnapshotService).snapshotAll();
    });

    it('should snapshot the item and rank it in topContent', async () => {
      const m = itemMetrics(externalId);
      const item = {
        views: m.views,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        reach: m.views,
        engagement: m.likes + m.comments + m.shares,
      };
      const [row] = await t.ds.query<Record<string, number>[]>(
        `SELECT views, likes, comments, shares, reach, engagement FROM post_daily_metrics WHERE post_id = $1 AND date = $2`,
        [postId, today()],
      );
      expect(row).toEqual(item);
      const body = (await history({}).expect(200)).body;
      expect(body.topContent).toHaveLength(1);
      expect(body.topContent[0]).toMatchObject({
        postId,
        contentType: 'text',
        ...item,
        targets: [
          { accountId: threads.id, platform: 'threads', externalId, views: item.views, engagement: item.engagement },
        ],
      });
      expect(body.topContent[0].text).toContain('Analytics post');
      expect(body.insights.map((i: { type: string }) => i.type)).toContain('top_post');
      expect((await history({ from: daysAgo(13), to: daysAgo(7) }).expect(200)).body.topContent).toEqual([]);
    });

    it('should read live numbers from the network for a post, an account and every account', async () => {
      const m = itemMetrics(externalId);
      const post = (await t.http().get('/v1/analytics').query({ postId }).set(tenant.auth).expect(200)).body;
      expect(post).toMatchObject({ profileId: tenant.profileId, accounts: [] });
      expect(post.posts).toEqual([
        {
          postId,
          accountId: threads.id,
          platform: 'threads',
          externalId,
          url: expect.any(String),
          error: null,
          metrics: {
            views: m.views,
            likes: m.likes,
            comments: m.comments,
            shares: m.shares,
            reach: m.views,
            engagement: m.likes + m.comments + m.shares,
          },
        },
      ]);
      expect(
        (await t.http().get('/v1/analytics').query({ postId, accountId: facebook.id }).set(tenant.auth).expect(200))
          .body.posts,
      ).toEqual([]);

      const one = (await t.http().get('/v1/analytics').query({ accountId: threads.id }).set(tenant.auth).expect(200))
        .body;
      expect(one.accounts).toEqual([
        {
          accountId: threads.id,
          platform: 'threads',
          name: expect.any(String),
          error: null,
          metrics: { date: today(), ...expectedDay(threads, today()) },
        },
      ]);
      const all = (await t.http().get('/v1/analytics').set(tenant.auth).expect(200)).body;
      expect(all.accounts.map((a: { accountId: string }) => a.accountId).sort()).toEqual(
        [threads.id, facebook.id].sort(),
      );
      expect(all.accounts.every((a: { error: unknown }) => a.error === null)).toBe(true);
    });

    it('should answer 404 for a post or account of another profile', async () => {
      await t.http().get('/v1/analytics').query({ postId }).set(other.auth).expect(404);
      await t.http().get('/v1/analytics').query({ accountId: threads.id }).set(other.auth).expect(404);
      await t.http().get('/v1/analytics').query({ accountId: 'nope' }).set(tenant.auth).expect(404);
    });
  });
});
