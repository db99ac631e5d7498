import { clearOfUtcMidnight, createTenant, createTestApp, TestApp } from '@test/support/test-app';
import { createKey } from '@test/support/e2e-helpers';
import { insertAccount } from '@test/support/publishing';

/**
 * The monthly plan quota and a key's daily cap stay exact when one workspace creates posts
 * concurrently (counters kept by triggers, re-read after the insert; no per-workspace lock).
 */
describe('POST /v1/posts: caps under concurrency', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const count = async (sql: string, params: unknown[]): Promise<number> =>
    (await t.ds.query<{ n: number }[]>(sql, params))[0].n;

  it('should let exactly the remaining monthly quota through when 20 creations race', async () => {
    await clearOfUtcMidnight(); // the month's count is read on one side of a month's first midnight
    const trial = await createTenant(t, { plan: 'trial' });
    const account = await insertAccount(t, trial, 'facebook');
    await t.ds.query(
      `INSERT INTO posts (workspace_id, profile_id, state, content_type, content) SELECT $1, $2, 'draft', 'text', '{"contentType":"text","message":"x"}' FROM generate_series(1, 95)`,
      [trial.workspaceId, trial.profileId],
    );
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t
          .http()
          .post('/v1/posts')
          .set(trial.auth)
          .send({ content: `race ${i}`, accountIds: [account.id] }),
      ),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(created).toHaveLength(5);
    for (const r of refused) {
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({
        code: 'plan_limit',
        details: { entitlement: 'posts_per_month', usage: 100, limit: 100 },
      });
    }
    expect(await count('SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1', [trial.workspaceId])).toBe(100);
    // Refused creations left nothing behind (targets, events).
    expect(
      await count(`SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'post.created'`, [
        trial.workspaceId,
      ]),
    ).toBe(5);
  });

  it("should let exactly a key's daily cap through when 20 creations race", async () => {
    await clearOfUtcMidnight(); // the day's count and its resetsAt read the same day
    const tenant = await createTenant(t);
    const account = await insertAccount(t, tenant, 'facebook');
    const key = await createKey(t, tenant, { maxPostsPerDay: 6 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t
          .http()
          .post('/v1/posts')
          .set(key.auth)
          .send({ content: `capped ${i}`, accountIds: [account.id] }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(6);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ code: 'daily_post_limit', details: { limit: 6, used: 6 } });
    }
    expect(await count('SELECT count(*)::int AS n FROM posts WHERE created_by_key_id = $1', [key.id])).toBe(6);
  });
});
