import { clearOfUtcMidnight, createTenant, createTestApp, TestApp } from '@test/support/test-app';
import { createKey } from '@test/support/e2e-helpers';
import { insertAccount } from '@test/support/publishing';

/** POST /v1/posts/bulk: dry run, all or nothing, caps over the whole batch, one Idempotency-Key. */
describe('POST /v1/posts/bulk', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  const count = async (sql: string, params: unknown[]): Promise<number> =>
    (await t.ds.query<{ n: number }[]>(sql, params))[0].n;
  const postsOf = (workspaceId: string) =>
    count('SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1', [workspaceId]);
  const eventsOf = (workspaceId: string) =>
    count(`SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'post.created'`, [workspaceId]);

  it('should create every post in input order, with their events, and replay under one Idempotency-Key', async () => {
    const tenant = await createTenant(t);
    const fb = await insertAccount(t, tenant, 'facebook');
    const li = await insertAccount(t, tenant, 'linkedin');
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const body = {
      posts: [
        { content: 'first', accountIds: [fb.id] },
        { content: 'second', accountIds: [fb.id, li.id], scheduledAt: future },
        { content: 'third', accountIds: [li.id], publishNow: true },
      ],
    };
    const res = await t.http().post('/v1/posts/bulk').set(tenant.auth).set('Idempotency-Key', 'bulk-1').send(body);
    expect(res.status).toBe(201);
    expect(res.body.posts).toHaveLength(3);
    expect(res.body.posts.map((p: { state: string }) => p.state)).toEqual(['draft', 'scheduled', 'queued']);
    const first = await t.http().get(`/v1/posts/${res.body.posts[0].id}`).set(tenant.auth);
    expect(first.body.post.content.message).toBe('first');
    const second = await t.http().get(`/v1/posts/${res.body.posts[1].id}`).set(tenant.auth);
    expect(second.body.post.targets).toHaveLength(2);
    expect(await eventsOf(tenant.workspaceId)).toBe(3);

    const again = await t.http().post('/v1/posts/bulk').set(tenant.auth).set('Idempotency-Key', 'bulk-1').send(body);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(res.body);
    expect(await postsOf(tenant.workspaceId)).toBe(3);
  });

  it('should create nothing and name each failing post by index when one post is invalid', async () => {
    const tenant = await createTenant(t);
    const fb = await insertAccount(t, tenant, 'facebook');
    const ig = await insertAccount(t, tenant, 'instagram');
    const res = await t
      .http()
      .post('/v1/posts/bulk')
      .set(tenant.auth)
      .send({
        posts: [
          { content: 'fine', accountIds: [fb.id] },
          { content: 'instagram needs media', accountIds: [ig.id] },
          { content: 'unknown account', accountIds: ['acc_missing'] },
          { content: { message: 'older shape' }, targetIds: [fb.id] },
        ],
      });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    const errors = res.body.error.details.errors as { index: number; code: string; field: string; message: string }[];
    expect(errors.map((e) => e.index)).toEqual(expect.arrayContaining([1, 2, 3]));
    expect(errors.some((e) => e.index === 0)).toBe(false);
    for (const e of errors) {
      expect(typeof e.code).toBe('string');
      expect(typeof e.field).toBe('string');
      expect(typeof e.message).toBe('string');
    }
    expect(errors.find((e) => e.index === 2)!.code).toBe('accounts_not_found');
    expect(errors.find((e) => e.index === 3)!.field).toBe('targetIds');
    expect(await postsOf(tenant.workspaceId)).toBe(0);
    expect(await eventsOf(tenant.workspaceId)).toBe(0);
  });

  it('should run every check on a dry run and create nothing', async () => {
    const tenant = await createTenant(t);
    const fb = await insertAccount(t, tenant, 'facebook');
    const ig = await insertAccount(t, tenant, 'instagram');
    const res = await t
      .http()
      .post('/v1/posts/bulk')
      .set(tenant.auth)
      .send({
        dryRun: true,
        posts: [
          { content: 'fine', accountIds: [fb.id] },
          { content: 'instagram needs media', accountIds: [ig.id] },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    expect(res.body.results[0]).toEqual({ index: 0, valid: true, errors: [] });
    expect(res.body.results[1]).toMatchObject({ index: 1, valid: false });
    expect(res.body.results[1].errors[0]).toMatchObject({ code: 'invalid_request', accountId: ig.id });
    expect(typeof res.body.results[1].errors[0].field).toBe('string');

    const dry = { dryRun: true, posts: [{ content: 'fine', accountIds: [fb.id] }] };
    const ok = await t.http().post('/v1/posts/bulk').set(tenant.auth).set('Idempotency-Key', 'dry-1').send(dry);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ valid: true, results: [{ index: 0, valid: true, errors: [] }] });
    const replay = await t.http().post('/v1/posts/bulk').set(tenant.auth).set('Idempotency-Key', 'dry-1').send(dry);
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(ok.body);
    expect(await postsOf(tenant.workspaceId)).toBe(0);
  });

  it('should report addToQueue posts on a dry run when the profile has no slots or no free slot left', async () => {
    const tenant = await createTenant(t);
    const fb = await insertAccount(t, tenant, 'facebook');
    const queued = { content: 'queued', accountIds: [fb.id], addToQueue: true };
    const none = await t
      .http()
      .post('/v1/posts/bulk')
      .set(tenant.auth)
      .send({ dryRun: true, posts: [{ content: 'now', accountIds: [fb.id] }, queued] });
    expect(none.status).toBe(200);
    expect(none.body.valid).toBe(false);
    expect(none.body.results[0]).toEqual({ index: 0, valid: true, errors: [] });
    expect(none.body.results[1].errors).toEqual([
      expect.objectContaining({
        code: 'invalid_request',
        field: 'addToQueue',
        message: expect.stringContaining('no slots'),
      }),
    ]);

    // One weekly slot: about 57 in the look-ahead, so a batch of 100 runs out of free slots.
    await t
      .http()
      .put('/v1/queue')
      .set(tenant.auth)
      .send({ timezone: 'UTC', slots: [{ day: 'mon', time: '10:00' }] })
      .expect(200);
    const full = await t
      .http()
      .post('/v1/posts/bulk')
      .set(tenant.auth)
      .send({ dryRun: true, posts: Array.from({ length: 100 }, () => queued) });
    expect(full.status).toBe(200);
    expect(full.body.valid).toBe(false);
    const results = full.body.results as { valid: boolean; errors: { field: string; message: string }[] }[];
    expect(results[0]).toEqual({ index: 0, valid: true, errors: [] });
    expect(results[99].valid).toBe(false);
    expect(results[99].errors[0]).toMatchObject({ code: 'invalid_request', field: 'addToQueue' });
    expect(results[99].errors[0].message).toMatch(/taken/);
    // The valid ones are a prefix: each took the next free slot.
    const firstInvalid = results.findIndex((r) => !r.valid);
    expect(results.slice(firstInvalid).every((r) => !r.valid)).toBe(true);
    expect(await postsOf(tenant.workspaceId)).toBe(0);
  });

  it('should refuse more than 100 posts and an empty batch', async () => {
    const tenant = await createTenant(t);
    const fb = await insertAccount(t, tenant, 'facebook');
    const many = Array.from({ length: 101 }, () => ({ content: 'x', accountIds: [fb.id] }));
    const res = await t.http().post('/v1/posts/bulk').set(tenant.auth).send({ posts: many });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'posts' } });
    const empty = await t.http().post('/v1/posts/bulk').set(tenant.auth).send({ posts: [] });
    expect(empty.status).toBe(400);
  });

  it("should count the whole batch against a key's daily cap", async () => {
    await clearOfUtcMidnight(); // the day's count and its resetsAt read the same day
    const tenant = await createTenant(t);
    const fb = await insertAccount(t, tenant, 'facebook');
    const key = await createKey(t, tenant, { maxPostsPerDay: 3 });
    const four = Array.from({ length: 4 }, (_, i) => ({ content: `p${i}`, accountIds: [fb.id] }));
    const res = await t.http().post('/v1/posts/bulk').set(key.auth).send({ posts: four });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'daily_post_limit', details: { limit: 3, used: 0 } });
    expect(await postsOf(tenant.workspaceId)).toBe(0);

    const dry = await t.http().post('/v1/posts/bulk').set(key.auth).send({ dryRun: true, posts: four });
    expect(dry.status).toBe(200);
    expect(dry.body.valid).toBe(false);
    expect(dry.body.results[3].errors[0]).toMatchObject({ code: 'daily_post_limit' });
    expect(dry.body.results[2].valid).toBe(true);

    const three = await t
      .http()
      .post('/v1/posts/bulk')
      .set(key.auth)
      .send({ posts: four.slice(0, 3) });
    expect(three.status).toBe(201);
    expect(await postsOf(tenant.workspaceId)).toBe(3);
  });

  it('should count the whole batch against the monthly plan quota', async () => {
    const trial = await createTenant(t, { plan: 'trial' });
    const fb = await insertAccount(t, trial, 'facebook');
    await t.ds.query(
      `INSERT INTO posts (workspace_id, profile_id, state, content_type, content) SELECT $1, $2, 'draft', 'text', '{"contentType":"text","message":"x"}' FROM generate_series(1, 98)`,
      [trial.workspaceId, trial.profileId],
    );
    const three = Array.from({ length: 3 }, (_, i) => ({ content: `p${i}`, accountIds: [fb.id] }));
    const res = await t.http().post('/v1/posts/bulk').set(trial.auth).send({ posts: three });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'plan_limit', details: { entitlement: 'posts_per_month' } });
    expect(await postsOf(trial.workspaceId)).toBe(98);
  });
});
