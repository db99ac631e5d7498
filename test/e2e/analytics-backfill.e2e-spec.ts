import { QueueService } from '@/common/queue/queue.service';
import { AnalyticsBackfillProcessor } from '@/modules/analytics/jobs/analytics-backfill.processor';
import { dailyAccountMetrics } from '@/modules/networks/kit/sandbox/sandbox-metrics';
import type { PlatformName } from '@/modules/networks/platform-name';
import { connectNewAccount } from '@test/support/connect-flow';
import { clearOfUtcMidnight, createTenant, createTestApp, eventually, Tenant, TestApp } from '@test/support/test-app';

const DAY_MS = 86_400_000;
/**
 * How long the connection's own backfill job may take: far below the hourly snapshot it must not
 * wait for, and generous, because a loaded CI machine runs the job behind the rest of the queue.
 */
const BACKFILL_WAIT_MS = 60_000;
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.parse(`${today()}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);

/** Analytics from the first minute: a connection is followed by its 90-day backfill (`backfill-analytics`). */
describe('analytics backfill on connection', () => {
  // Its rows are written for the UTC days around the start, and read as of the days at each test:
  // the whole file runs within one UTC day (it takes well under the margin).
  beforeAll(() => clearOfUtcMidnight(150_000));
  let t: TestApp;
  let tenant: Tenant;

  const connect = (platform: PlatformName) => connectNewAccount(t, tenant, platform);

  const rowsOf = async (accountId: string) =>
    (
      await t.ds.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM account_daily_metrics WHERE account_id = $1`, [
        accountId,
      ])
    )[0].n;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => t.close());

  it('should answer hasHistory with 90 days within seconds of a connection, before any hourly snapshot', async () => {
    const account = await connect('linkedin');
    const body = await eventually(
      async () => {
        const res = await t
          .http()
          .get('/v1/analytics/history')
          .query({ from: daysAgo(89), to: today() })
          .set(tenant.auth)
          .expect(200);
        return res.body.hasHistory === true && res.body.snapshotDays === 90 ? res.body : undefined;
      },
      { timeoutMs: BACKFILL_WAIT_MS, intervalMs: 200 },
    );
    expect(body).toMatchObject({ hasHistory: true, snapshotDays: 90 });
    const day = dailyAccountMetrics(account.platformAccountId, daysAgo(30));
    const point = (body.timeseries as { date: string; views: number }[]).find((p) => p.date === daysAgo(30));
    expect(point?.views).toBe(day.views);
    // Nothing ran the hourly snapshot: the connection's own job did it.
    const [marker] = await t.ds.query<{ days: number; from_date: string }[]>(
      `SELECT days, from_date::text FROM analytics_backfills WHERE account_id = $1`,
      [account.id],
    );
    expect(marker).toEqual({ days: 90, from_date: daysAgo(89) });
  });

  it('should enqueue the backfill job once per account.connected event (job id from the event)', async () => {
    const account = await connect('facebook');
    const [event] = await t.ds.query<{ id: string }[]>(
      `SELECT id FROM events WHERE type = 'account.connected' AND data->'account'->>'id' = $1`,
      [account.id],
    );
    const job = await eventually(() =>
      t.app.get(QueueService).queue('maintenance').getJob(`backfill-analytics-${event.id}`),
    );
    expect(job?.data).toEqual({ accountId: account.id });
    await eventually(async () => ((await rowsOf(account.id)) === 90 ? true : undefined), {
      timeoutMs: BACKFILL_WAIT_MS,
    });
  });

  it('should not duplicate history when the job runs again or the account reconnects', async () => {
    const account = await connect('threads');
    await eventually(async () => ((await rowsOf(account.id)) === 90 ? true : undefined), {
      timeoutMs: BACKFILL_WAIT_MS,
    });
    const processor = t.app.get(AnalyticsBackfillProcessor);
    // A second run (stalled-job recovery) refreshes yesterday and today only.
    expect(await processor.onBackfillAnalytics({ accountId: account.id })).toMatchObject({
      backfilled: false,
      days: 2,
    });
    // A reconnect (a new connected_at) backfills its gap again, upserting the same days.
    await t.ds.query(`UPDATE social_accounts SET connected_at = now() WHERE id = $1`, [account.id]);
    expect(await processor.onBackfillAnalytics({ accountId: account.id })).toMatchObject({
      backfilled: true,
      days: 90,
    });
    expect(await rowsOf(account.id)).toBe(90);
  });
});
