import { randomUUID } from 'node:crypto';
import { createPost, eventTypesOf, inFuture, setPolicy, VIDEO_CONTENT } from '@test/support/post-fixtures';
import { clearOfUtcMidnight, createApiApp, createTenant, Tenant, TestApp } from '@test/support/test-app';
import { authChanged, createKey } from '@test/support/e2e-helpers';
import { insertAccount, InsertedAccount } from '@test/support/publishing';

describe('POST /v1/posts', () => {
  let t: TestApp;
  let tenant: Tenant;
  let fb: InsertedAccount;
  let li: InsertedAccount;
  let yt: InsertedAccount;

  beforeAll(async () => {
    // API role only: no worker moves posts on, so the states the API sets stay put.
    ({ t, tenant } = await createApiApp());
    fb = await insertAccount(t, tenant, 'facebook');
    li = await insertAccount(t, tenant, 'linkedin');
    yt = await insertAccount(t, tenant, 'youtube');
  });
  afterAll(async () => t.close());

  const post = (body: unknown, auth = tenant.auth) => createPost(t, auth, body as object);

  describe('shapes', () => {
    it('should save an older-shape post as a draft when saveAsDraft is omitted', async () => {
      const res = await post({ content: { message: 'Hello' }, targetIds: [fb.id] }).expect(201);
      expect(res.body).toMatchObject({
        id: expect.any(String),
        state: 'draft',
        post: { state: 'draft', contentType: 'text', message: 'Hello', caption: null, scheduledAt: null },
      });
      expect(res.body.post.id).toBe(res.body.id);
      expect(res.body.post.targets).toEqual([
        expect.objectContaining({ accountId: fb.id, platform: 'facebook', pageName: fb.name, status: 'pending' }),
      ]);
      expect(res.body.post.content).toBeUndefined();
      expect(await eventTypesOf(t, res.body.id)).toEqual(['post.created']);
    });

    it('should schedule an older-shape post with saveAsDraft false, answering scheduledAt in UTC', async () => {
      const at = new Date(Date.now() + 3 * 3600_000);
      at.setUTCMilliseconds(0);
      const local = new Date(at.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      const res = await post({
        content: { message: 'Later' },
        targetIds: [fb.id],
        saveAsDraft: false,
        scheduledAt: local,
      }).expect(201);
      expect(res.body.state).toBe('scheduled');
      expect(res.body.post.scheduledAt).toBe(at.toISOString());
      expect(await eventTypesOf(t, res.body.id)).toEqual(['post.created', 'post.scheduled']);
    });

    it('should queue an older-shape post with saveAsDraft false and no scheduledAt', async () => {
      const res = await post({ content: { message: 'Now' }, targetIds: [fb.id], saveAsDraft: false }).expect(201);
      expect(res.body.state).toBe('queued');
    });

    it('should publish to every active account when the older shape omits targetIds', async () => {
      const res = await post({ content: { ...VIDEO_CONTENT } }).expect(201);
      expect(res.body.post.targets.map((x: { accountId: string }) => x.accountId).sort()).toEqual(
        [fb.id, li.id, yt.id].sort(),
      );
      expect(res.body.post.contentType).toBe('video');
    });

    it('should accept the legacy flat body', async () => {
      const res = await post({
        message: 'Flat body',
        imageUrls: ['https://cdn.example.com/a.png'],
        targetIds: [fb.id],
      }).expect(201);
      expect(res.body).toMatchObject({ state: 'draft', post: { contentType: 'image', message: 'Flat body' } });
      const read = await t.http().get(`/v1/posts/${res.body.id}`).set(tenant.auth).expect(200);
      expect(read.body.post.content.imageUrls).toEqual(['https://cdn.example.com/a.png']);
    });

    it('should accept the newer shape with a string content and publishNow', async () => {
      const res = await post({ content: 'Newer shape', accountIds: [fb.id, li.id], publishNow: true }).expect(201);
      expect(res.body).toMatchObject({ state: 'queued', post: { message: 'Newer shape', contentType: 'text' } });
      expect(res.body.post.targets).toHaveLength(2);
      expect(await eventTypesOf(t, res.body.id)).toEqual(['post.created']);
    });

    it('should make a newer-shape post with neither publishNow nor scheduledAt a draft', async () => {
      const res = await post({ content: 'Just saving', accountIds: [fb.id] }).expect(201);
      expect(res.body.state).toBe('draft');
    });

    it('should schedule a newer-shape post with scheduledAt, keeping mediaUrls and platforms', async () => {
      const res = await post({
        content: { caption: 'Watch this' },
        accountIds: [yt.id],
        scheduledAt: inFuture(3600_000),
        mediaUrls: ['https://cdn.example.com/clip.mp4'],
        platforms: { youtube: { title: 'My clip' } },
      }).expect(201);
      expect(res.body).toMatchObject({ state: 'scheduled', post: { contentType: 'video', caption: 'Watch this' } });
      const read = await t.http().get(`/v1/posts/${res.body.id}`).set(tenant.auth).expect(200);
      expect(read.body.post.content).toMatchObject({
        videoUrl: 'https://cdn.example.com/clip.mp4',
        youtube: { title: 'My clip' },
      });
    });

    it('should take profileId from the body of the newer shape', async () => {
      const res = await post({ content: 'Mine', accountIds: [fb.id], profileId: tenant.profileId }).expect(201);
      expect(res.body.state).toBe('draft');
    });
  });

  describe('errors', () => {
    it('should answer invalid_request naming the field', async () => {
      const res = await post({ content: { message: 'x', imageUrls: 'not-a-list' }, targetIds: [fb.id] }).expect(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'content.imageUrls' } });
      expect(res.body.error.message).toContain('content.imageUrls');
      const unknown = await post({ content: 'x', accountIds: [fb.id], colour: 'red' }).expect(400);
      expect(unknown.body.error.message).toContain('colour');
    });

    it('should answer invalid_request when publishNow and scheduledAt are both given', async () => {
      const res = await post({
        content: 'x',
        accountIds: [fb.id],
        publishNow: true,
        scheduledAt: inFuture(60_000),
      }).expect(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'publishNow' } });
    });

    it.each([['next tuesday'], ['2030-02-30T10:00:00Z'], [inFuture(-60_000)]])(
      'should answer invalid_scheduled_at for %p',
      async (scheduledAt) => {
        const res = await post({ content: 'x', accountIds: [fb.id], scheduledAt }).expect(400);
        expect(res.body.error.code).toBe('invalid_scheduled_at');
      },
    );

    it('should answer key_not_linked_to_user when a key without owner publishes, but save its drafts', async () => {
      const key = await createKey(t, tenant, {}, { owner: null });
      const res = await post({ content: 'x', accountIds: [fb.id], publishNow: true }, key.auth).expect(400);
      expect(res.body.error.code).toBe('key_not_linked_to_user');
      await post({ content: 'x', accountIds: [fb.id], scheduledAt: inFuture(60_000) }, key.auth).expect(400);
      await post({ content: 'x', accountIds: [fb.id] }, key.auth).expect(201);
    });

    it('should answer trial_expired on writes of an expired trial', async () => {
      const trial = await createTenant(t, { plan: 'trial' });
      await t.ds.query(`UPDATE workspaces SET trial_ends_at = now() - interval '1 day' WHERE id = $1`, [
        trial.workspaceId,
      ]);
      await authChanged(t, `workspace:${trial.workspaceId}`);
      const res = await post({ content: 'x', accountIds: [randomUUID()] }, trial.auth).expect(402);
      expect(res.body.error.code).toBe('trial_expired');
    });

    it('should answer plan_limit when the monthly post quota is used up', async () => {
      const trial = await createTenant(t, { plan: 'trial' });
      const account = await insertAccount(t, trial, 'facebook');
      await t.ds.query(
        `INSERT INTO posts (workspace_id, profile_id, state, content_type, content) SELECT $1, $2, 'draft', 'text', '{"contentType":"text","message":"x"}' FROM generate_series(1, 100)`,
        [trial.workspaceId, trial.profileId],
      );
      const res = await post({ content: 'x', accountIds: [account.id] }, trial.auth).expect(403);
      expect(res.body.error).toMatchObject({
        code: 'plan_limit',
        details: { entitlement: 'posts_per_month', usage: 100, limit: 100 },
      });
    });

    it("should answer account_not_allowed for an account outside the key's accountIds", async () => {
      const key = await createKey(t, tenant, { accountIds: [fb.id] });
      const res = await post({ content: 'x', accountIds: [li.id] }, key.auth).expect(403);
      expect(res.body.error.code).toBe('account_not_allowed');
      await post({ content: 'x', accountIds: [fb.id] }, key.auth).expect(201);
    });

    it("should answer platform_not_allowed when the profile's policy excludes the platform", async () => {
      const other = await createTenant(t);
      const a = await insertAccount(t, other, 'linkedin');
      await setPolicy(t, other, { allowedPlatforms: ['facebook'] });
      const res = await post({ content: 'x', accountIds: [a.id] }, other.auth).expect(403);
      expect(res.body.error.code).toBe('platform_not_allowed');
    });

    it('should answer approval_required when approval is required and nobody can approve', async () => {
      const other = await createTenant(t);
      const a = await insertAccount(t, other, 'facebook');
      await setPolicy(t, other, { requireApproval: true, approverUserIds: [] });
      const res = await post({ content: 'x', accountIds: [a.id], publishNow: true }, other.auth).expect(403);
      expect(res.body.error.code).toBe('approval_required');
      // A draft asks nobody yet.
      await post({ content: 'x', accountIds: [a.id] }, other.auth).expect(201);
    });

    it('should send a post for approval when the policy requires it', async () => {
      const other = await createTenant(t);
      const a = await insertAccount(t, other, 'facebook');
      await setPolicy(t, other, { requireApproval: true, approverUserIds: [other.userId] });
      const res = await post({ content: 'x', accountIds: [a.id], publishNow: true }, other.auth).expect(201);
      expect(res.body.state).toBe('pending_approval');
      expect(await eventTypesOf(t, res.body.id)).toEqual(['approval.requested', 'post.created']);
    });

    it('should answer daily_post_limit with limit, used and resetsAt', async () => {
      await clearOfUtcMidnight(); // the day's count and its resetsAt read the same day
      const key = await createKey(t, tenant, { maxPostsPerDay: 2 });
      await post({ content: 'one', accountIds: [fb.id] }, key.auth).expect(201);
      await post({ content: 'two', accountIds: [fb.id] }, key.auth).expect(201);
      const res = await post({ content: 'three', accountIds: [fb.id] }, key.auth).expect(403);
      const midnight = new Date();
      midnight.setUTCHours(24, 0, 0, 0);
      expect(res.body.error).toMatchObject({
        code: 'daily_post_limit',
        details: { limit: 2, used: 2, resetsAt: midnight.toISOString() },
      });
    });

    it('should not let concurrent creations exceed the daily cap', async () => {
      const key = await createKey(t, tenant, { maxPostsPerDay: 3 });
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => post({ content: `race ${i}`, accountIds: [fb.id] }, key.auth)),
      );
      expect(results.filter((r) => r.status === 201)).toHaveLength(3);
      expect(results.filter((r) => r.status === 403).every((r) => r.body.error.code === 'daily_post_limit')).toBe(true);
    });

    it('should answer no_accounts_connected when the profile has no active account', async () => {
      const other = await createTenant(t);
      await insertAccount(t, other, 'facebook', { status: 'expired' });
      const res = await post({ content: 'x', accountIds: [randomUUID()] }, other.auth).expect(404);
      expect(res.body.error.code).toBe('no_accounts_connected');
      const older = await post({ content: { message: 'x' } }, other.auth).expect(404);
      expect(older.body.error.code).toBe('no_accounts_connected');
    });

    it('should answer accounts_not_found when no id matches, counting accounts of another profile as missing', async () => {
      const other = await createTenant(t);
      const foreign = await insertAccount(t, other, 'facebook');
      const res = await post({ content: 'x', accountIds: [foreign.id, 'not-a-uuid'] }).expect(404);
      expect(res.body.error).toMatchObject({
        code: 'accounts_not_found',
        details: { missing: [foreign.id, 'not-a-uuid'] },
      });
      const partly = await post({ content: 'x', accountIds: [fb.id, foreign.id] }).expect(404);
      expect(partly.body.error.code).toBe('accounts_not_found');
      const disconnected = await insertAccount(t, tenant, 'facebook', { status: 'disconnected' });
      expect(
        (await post({ content: { message: 'x' }, targetIds: [disconnected.id] }).expect(404)).body.error.code,
      ).toBe('accounts_not_found');
    });

    it("should answer invalid_request naming the blocked term of the profile's policy", async () => {
      const other = await createTenant(t);
      const a = await insertAccount(t, other, 'facebook');
      await setPolicy(t, other, { blockedTerms: ['Casino'] });
      const res = await post(
        { content: { message: 'Visit our CASINO tonight' }, targetIds: [a.id] },
        other.auth,
      ).expect(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'content.message' } });
      expect(res.body.error.message).toContain("'Casino'");
    });

    it("should answer invalid_scheduled_at beyond the policy's maxScheduleDaysAhead", async () => {
      const other = await createTenant(t);
      const a = await insertAccount(t, other, 'facebook');
      await setPolicy(t, other, { maxScheduleDaysAhead: 7 });
      const res = await post(
        { content: 'x', accountIds: [a.id], scheduledAt: inFuture(8 * 86400_000) },
        other.auth,
      ).expect(400);
      expect(res.body.error.code).toBe('invalid_scheduled_at');
      await post({ content: 'x', accountIds: [a.id], scheduledAt: inFuture(6 * 86400_000) }, other.auth).expect(201);
    });

    it('should check in the documented order: plan_limit before account_not_allowed before the 404s', async () => {
      const trial = await createTenant(t, { plan: 'trial' });
      await t.ds.query(
        `INSERT INTO posts (workspace_id, profile_id, state, content_type, content) SELECT $1, $2, 'draft', 'text', '{"contentType":"text","message":"x"}' FROM generate_series(1, 100)`,
        [trial.workspaceId, trial.profileId],
      );
      expect((await post({ content: 'x', accountIds: [randomUUID()] }, trial.auth).expect(403)).body.error.code).toBe(
        'plan_limit',
      );
      const key = await createKey(t, tenant, { accountIds: [fb.id] });
      expect((await post({ content: 'x', accountIds: [randomUUID()] }, key.auth).expect(403)).body.error.code).toBe(
        'account_not_allowed',
      );
    });
  });

  describe('network validation', () => {
    it('should refuse a creation the target network rejects, naming account, platform and field', async () => {
      const res = await post({ content: 'Text only', accountIds: [fb.id, yt.id] }).expect(400);
      expect(res.body.error.code).toBe('invalid_request');
      const errors = res.body.error.details.errors as {
        accountId: string;
        platform: string;
        field: string;
        message: string;
      }[];
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.every((e) => e.accountId === yt.id && e.platform === 'youtube')).toBe(true);
      expect(errors.map((e) => e.field)).toContain('content.videoUrl');
      expect(errors.every((e) => typeof e.message === 'string' && e.message.length > 0)).toBe(true);
    });

    it('should answer POST /v1/posts/validate with 200 { valid, errors } and store nothing', async () => {
      const before = await t.ds.query<{ n: number }[]>('SELECT count(*)::int AS n FROM posts');
      const bad = await t
        .http()
        .post('/v1/posts/validate')
        .set(tenant.auth)
        .send({ content: { message: 'x' }, targetIds: [yt.id] })
        .expect(200);
      expect(bad.body.valid).toBe(false);
      expect(bad.body.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ accountId: yt.id, platform: 'youtube', field: 'content.videoUrl' }),
        ]),
      );
      const titleError = (bad.body.errors as { field: string }[]).find((e) => e.field.includes('title'));
      expect(titleError?.field).toBe('content.youtube.title');
      const good = await t
        .http()
        .post('/v1/posts/validate')
        .set(tenant.auth)
        .send({ content: VIDEO_CONTENT, targetIds: [yt.id] })
        .expect(200);
      expect(good.body).toEqual({ valid: true, errors: [] });
      const newer = await t
        .http()
        .post('/v1/posts/validate')
        .set(tenant.auth)
        .send({ content: 'x', accountIds: [yt.id], mediaUrls: ['https://cdn.example.com/c.mp4'] })
        .expect(200);
      expect(newer.body.errors).toEqual([
        expect.objectContaining({ accountId: yt.id, platform: 'youtube', field: 'platforms.youtube.title' }),
      ]);
      const after = await t.ds.query<{ n: number }[]>('SELECT count(*)::int AS n FROM posts');
      expect(after[0].n).toBe(before[0].n);
    });
  });

  describe('idempotency', () => {
    it('should replay a creation with the same Idempotency-Key and create one post', async () => {
      const key = `create-${randomUUID()}`;
      const body = { content: 'Once', accountIds: [fb.id], publishNow: true };
      const first = await t
        .http()
        .post('/v1/posts')
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      const second = await t
        .http()
        .post('/v1/posts')
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send(body)
        .expect(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(second.body).toEqual(first.body);
      const rows = await t.ds.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM posts WHERE message = 'Once'`);
      expect(rows[0].n).toBe(1);
      const reused = await t
        .http()
        .post('/v1/posts')
        .set(tenant.auth)
        .set('Idempotency-Key', key)
        .send({ ...body, content: 'Twice' })
        .expect(409);
      expect(reused.body.error.code).toBe('idempotency_key_reused');
    });
  });
});
