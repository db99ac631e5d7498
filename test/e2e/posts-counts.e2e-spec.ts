import type { Client } from 'pg';
import type { PlatformName } from '@/modules/networks/platform-name';
import { PostSchedulerProcessor } from '@/modules/posts/jobs/post-scheduler.processor';
import { CONTENT_TYPES, ContentType, POST_STATES, PostState } from '@/modules/posts/entities/post.entity';
import { connectThroughSandbox } from '@test/support/connect-flow';
import { createKey, pgClient } from '@test/support/e2e-helpers';
import { addUser, inFuture, setPolicy, VIDEO_CONTENT } from '@test/support/post-fixtures';
import { accountsOf, insertAccount, InsertedAccount, postState, waitForFinal } from '@test/support/publishing';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

/** An account of the tests: inserted, or connected through the sandbox. */
type Account = Pick<InsertedAccount, 'id' | 'platform' | 'name'>;

const PLATFORMS: PlatformName[] = ['facebook', 'linkedin', 'youtube'];

interface Filter {
  state?: PostState;
  contentType?: ContentType;
  platform?: PlatformName;
}

/** Every combination of the list's filters (none, each alone, every pair, all three). */
const FILTERS: Filter[] = [undefined, ...POST_STATES].flatMap((state) =>
  [undefined, ...CONTENT_TYPES].flatMap((contentType) =>
    [undefined, ...PLATFORMS].map((platform) => ({ state, contentType, platform })),
  ),
);

/**
 * `total` of GET /v1/posts comes from trigger-kept counter tables (post_counts,
 * post_platform_counts). After each kind of change, every filter combination's total must
 * equal a count of the posts themselves.
 */
describe('exact post totals (counter tables)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let fb1: Account;
  let fb2: Account;
  let li: Account;
  let yt: Account;

  const create = async (body: object, auth = tenant.auth): Promise<string> => {
    const res = await t.http().post('/v1/posts').set(auth).send(body);
    expect(res.status).toBe(201);
    return res.body.id as string;
  };

  async function connect(platform: PlatformName, who: Tenant = tenant): Promise<Account> {
    const before = new Set((await accountsOf(t, who.profileId)).map((a) => a.id));
    await connectThroughSandbox(t, who, platform);
    const added = (await accountsOf(t, who.profileId)).find((a) => !before.has(a.id));
    if (!added) throw new Error(`connecting ${platform} added no account`);
    return { id: added.id, platform: added.platform, name: added.name };
  }

  /** The totals every filter combination should have, counted from the posts and their targets. */
  async function expectedTotals(profileId: string): Promise<Map<string, number>> {
    const posts = await t.ds.query<{ state: PostState; contentType: ContentType; platforms: PlatformName[] }[]>(
      `SELECT p.state, p.content_type AS "contentType", coalesce(array_agg(DISTINCT t.platform) FILTER (WHERE t.platform IS NOT NULL), '{}') AS platforms
         FROM posts p LEFT JOIN post_targets t ON t.post_id = p.id AND t.profile_id = p.profile_id
        WHERE p.profile_id = $1 GROUP BY p.id`,
      [profileId],
    );
    const totals = new Map<string, number>();
    for (const f of FILTERS) {
      const n = posts.filter(
        (p) =>
          (!f.state || p.state === f.state) &&
          (!f.contentType || p.contentType === f.contentType) &&
          (!f.platform || p.platforms.includes(f.platform)),
      ).length;
      totals.set(key(f), n);
    }
    return totals;
  }

  const key = (f: Filter): string =>
    new URLSearchParams(Object.entries(f).filter((e): e is [string, string] => e[1] !== undefined)).toString();

  /** GET /v1/posts?limit=1&… for all 192 combinations; returns the ones whose total is off. */
  async function mismatches(who: Tenant = tenant): Promise<string[]> {
    const expected = await expectedTotals(who.profileId);
    const off: string[] = [];
    for (let i = 0; i < FILTERS.length; i += 16) {
      await Promise.all(
        FILTERS.slice(i, i + 16).map(async (f) => {
          const q = key(f);
          const res = await t
            .http()
            .get(`/v1/posts?limit=1${q ? `&${q}` : ''}`)
            .set(who.auth);
          expect(res.status).toBe(200);
          if (res.body.total !== expected.get(q))
            off.push(`${q || '(no filter)'}: total ${res.body.total as number}, posts ${expected.get(q)}`);
        }),
      );
    }
    return off.sort();
  }

  const total = async (query = '', who: Tenant = tenant): Promise<number> =>
    (await t.http().get(`/v1/posts?limit=1${query}`).set(who.auth).expect(200)).body.total as number;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    fb1 = await connect('facebook');
    fb2 = await connect('facebook');
    li = await connect('linkedin');
    yt = await insertAccount(t, tenant, 'youtube');
  });
  afterAll(async () => t.close());

  it('should count nothing for a profile without posts', async () => {
    expect(await total()).toBe(0);
    expect(await total('&platform=facebook&state=draft')).toBe(0);
  });

  it('should keep every total exact across creations of each state, type and platform mix', async () => {
    await create({ content: { message: 'Text draft' }, targetIds: [fb1.id] });
    await create({ content: { message: 'Two pages, one platform' }, targetIds: [fb1.id, fb2.id] });
    await create({
      content: { message: 'Image draft', imageUrls: ['https://cdn.example.com/a.png'] },
      targetIds: [fb1.id, li.id],
    });
    await create({ content: VIDEO_CONTENT, targetIds: [yt.id] });
    await create({ content: 'Scheduled', accountIds: [fb2.id, li.id], scheduledAt: inFuture(3_600_000) });
    await create({
      content: { message: 'Scheduled image', imageUrls: ['https://cdn.example.com/b.png'] },
      targetIds: [li.id],
      scheduledAt: inFuture(7_200_000),
      saveAsDraft: false,
    });
    expect(await total()).toBe(6);
    expect(await total('&platform=facebook')).toBe(4);
    expect(await total('&platform=facebook&state=draft&contentType=text')).toBe(2);
    expect(await mismatches()).toEqual([]);
  });

  it('should keep totals exact when posts are published, partly published, fail and are retried', async () => {
    const published = await create({
      content: 'Published everywhere',
      accountIds: [fb1.id, fb2.id, li.id],
      publishNow: true,
    });
    const partial = await create({
      content: 'Fails on LinkedIn #sandbox-fail:linkedin',
      accountIds: [fb1.id, li.id],
      publishNow: true,
    });
    const failed = await create({
      content: 'Fails everywhere #sandbox-fail:linkedin',
      accountIds: [li.id],
      publishNow: true,
    });
    expect(await waitForFinal(t, published)).toBe('published');
    expect(await waitForFinal(t, partial)).toBe('partially_published');
    expect(await waitForFinal(t, failed)).toBe('failed');
    expect(await total('&state=published')).toBe(1);
    expect(await total('&state=partially_published&platform=linkedin')).toBe(1);
    expect(await mismatches()).toEqual([]);

    await t.http().post(`/v1/posts/${failed}/retry`).set(tenant.auth).expect(200);
    expect(await waitForFinal(t, failed)).toBe('failed');
    expect(await mismatches()).toEqual([]);
  });

  it('should keep totals exact when drafts and scheduled posts are published, edited and cancelled', async () => {
    const draft = await create({ content: 'Draft to publish', accountIds: [li.id] });
    const scheduled = await create({
      content: 'Scheduled to cancel',
      accountIds: [fb1.id, li.id],
      scheduledAt: inFuture(3_600_000),
    });
    const retyped = await create({ content: { message: 'Becomes an image' }, targetIds: [fb2.id] });
    await t.http().post(`/v1/posts/${draft}/publish`).set(tenant.auth).expect(200);
    await t.http().delete(`/v1/posts/${scheduled}`).set(tenant.auth).expect(200);
    await t
      .http()
      .put(`/v1/posts/${retyped}`)
      .set(tenant.auth)
      .send({ content: { imageUrls: ['https://cdn.example.com/c.png'] } })
      .expect(200);
    expect(await waitForFinal(t, draft)).toBe('published');
    expect(await postState(t, scheduled)).toBe('cancelled');
    expect(await total('&state=cancelled&platform=linkedin')).toBe(1);
    expect(await mismatches()).toEqual([]);
  });

  it('should keep totals exact through approval, rejection and promotion of due scheduled posts', async () => {
    const approver = await createTenant(t);
    const account = await connect('facebook', approver);
    await setPolicy(t, approver, { requireApproval: true, approverUserIds: [approver.userId] });
    const writer = await createKey(
      t,
      approver,
      { permissions: ['posts:read', 'posts:write'] },
      // A key for another person is the operator's to make.
      { owner: await addUser(t, approver) },
    );
    const approved = await create(
      { content: 'Approve me', accountIds: [account.id], scheduledAt: inFuture(3_600_000) },
      writer.auth,
    );
    const rejected = await create({ content: 'Reject me', accountIds: [account.id], publishNow: true }, writer.auth);
    const pending = await create(
      { content: 'Leave me pending', accountIds: [account.id], publishNow: true },
      writer.auth,
    );
    expect(await total('&state=pending_approval&platform=facebook', approver)).toBe(3);
    await t.http().post(`/v1/posts/${approved}/approve`).set(approver.auth).expect(200);
    await t.http().post(`/v1/posts/${rejected}/reject`).set(approver.auth).send({ reason: 'no' }).expect(200);
    expect(await postState(t, pending)).toBe('pending_approval');
    expect(await mismatches(approver)).toEqual([]);

    // A scheduled post whose time has come is promoted by the scheduler (scheduled → queued → published).
    expect(await postState(t, approved)).toBe('scheduled');
    await t.ds.query(`UPDATE posts SET scheduled_at = now() - interval '1 second' WHERE id = $1`, [approved]);
    expect(await t.app.get(PostSchedulerProcessor).promote(approved)).toBe('queued');
    expect(await waitForFinal(t, approved)).toBe('published');
    expect(await mismatches(approver)).toEqual([]);
    // The other profile's posts never count in this one's totals.
    expect(await mismatches()).toEqual([]);
  });

  it('should keep totals exact under concurrent creations, cancellations and publications', async () => {
    const ids = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        create(
          i % 3 === 0
            ? { content: `Concurrent draft ${i}`, accountIds: [li.id] }
            : {
                content: `Concurrent scheduled ${i}`,
                accountIds: i % 2 ? [fb1.id, fb2.id] : [fb1.id, li.id],
                scheduledAt: inFuture(3_600_000 + i * 1000),
              },
        ),
      ),
    );
    const results = await Promise.all(
      ids.map((id, i) =>
        i % 3 === 0
          ? t.http().post(`/v1/posts/${id}/publish`).set(tenant.auth)
          : t.http().delete(`/v1/posts/${id}`).set(tenant.auth),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200));
    await Promise.all(ids.map((id) => waitForFinal(t, id)));
    expect(await mismatches()).toEqual([]);
  });

  it("should not make one profile's state changes wait for each other's counters (two connections)", async () => {
    const [first, second] = [
      await create({ content: 'Held by the first connection', accountIds: [fb1.id] }),
      await create({ content: 'Changed by the second connection', accountIds: [fb1.id] }),
    ];
    const shard = async (c: Client): Promise<number> => (await c.query('SELECT post_count_shard() AS s')).rows[0].s;
    const a = await pgClient(t);
    const clients = [a];
    try {
      // Two connections whose counter rows differ (what two busy processes' pools have).
      let b = await pgClient(t);
      clients.push(b);
      for (let i = 0; i < 32 && (await shard(b)) === (await shard(a)); i++) clients.push((b = await pgClient(t)));
      expect(await shard(b)).not.toBe(await shard(a));
      await a.query('BEGIN');
      await a.query(`UPDATE posts SET state = 'cancelled' WHERE id = $1`, [first]);
      // The same profile, state, type and platform, while the first transaction is open: no wait.
      await b.query(`SET lock_timeout = '10s'`);
      await b.query(`UPDATE posts SET state = 'cancelled' WHERE id = $1`, [second]);
      await a.query('COMMIT');
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    expect(await postState(t, first)).toBe('cancelled');
    expect(await postState(t, second)).toBe('cancelled');
    expect(await mismatches()).toEqual([]);
  });

  it('should keep totals exact when targets and posts are deleted (the API never deletes; operators and retention jobs may)', async () => {
    const twoPages = await create({ content: 'Two Facebook pages', accountIds: [fb1.id, fb2.id] });
    const before = await total('&platform=facebook&state=draft');
    await t.ds.query(`DELETE FROM post_targets WHERE post_id = $1 AND account_id = $2`, [twoPages, fb1.id]);
    expect(await total('&platform=facebook&state=draft')).toBe(before);
    await t.ds.query(`DELETE FROM post_targets WHERE post_id = $1`, [twoPages]);
    expect(await total('&platform=facebook&state=draft')).toBe(before - 1);
    expect(await mismatches()).toEqual([]);

    const gone = await create({ content: 'Deleted with its targets', accountIds: [fb1.id, li.id] });
    const all = await total();
    await t.ds.transaction(async (m) => {
      await m.query(`DELETE FROM posts WHERE id = $1`, [gone]);
      await m.query(`DELETE FROM post_targets WHERE post_id = $1`, [gone]);
    });
    expect(await total()).toBe(all - 1);
    expect(await mismatches()).toEqual([]);
  });
});
