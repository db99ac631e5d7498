import { QueueService } from '@/common/queue/queue.service';
import { addUser, createPost, eventTypesOf, inFuture, setPolicy, VIDEO_CONTENT } from '@test/support/post-fixtures';
import { createApiApp, createTenant, Tenant, TestApp } from '@test/support/test-app';
import { createKey } from '@test/support/e2e-helpers';
import { insertAccount, InsertedAccount } from '@test/support/publishing';

describe('post state machine', () => {
  let t: TestApp;
  let tenant: Tenant;
  let fb: InsertedAccount;
  let yt: InsertedAccount;

  beforeAll(async () => {
    // API role only: no worker, so every state reached here comes from the API itself.
    ({ t, tenant } = await createApiApp());
    fb = await insertAccount(t, tenant, 'facebook');
    yt = await insertAccount(t, tenant, 'youtube');
  });
  afterAll(async () => t.close());

  const create = async (body: object, auth = tenant.auth): Promise<string> =>
    (await createPost(t, auth, body).expect(201)).body.id as string;
  const get = async (id: string, auth = tenant.auth) =>
    (await t.http().get(`/v1/posts/${id}`).set(auth).expect(200)).body.post;
  const history = async (id: string, auth = tenant.auth) =>
    (
      (await t.http().get(`/v1/posts/${id}/history`).set(auth).expect(200)).body.history as {
        from: string | null;
        to: string;
      }[]
    ).map((h) => `${h.from ?? '-'}>${h.to}`);
  const job = async (id: string) => t.app.get(QueueService).queue('publish').getJob(id);

  describe('PUT /v1/posts/{id}', () => {
    it('should edit a draft and keep it a draft', async () => {
      const id = await create({ content: { message: 'Draft', link: 'https://example.com' }, targetIds: [fb.id] });
      const res = await t
        .http()
        .put(`/v1/posts/${id}`)
        .set(tenant.auth)
        .send({ content: { message: 'Edited', link: null } })
        .expect(200);
      expect(res.body).toEqual({ message: 'Post updated.', post: { id, state: 'draft' } });
      const post = await get(id);
      expect(post).toMatchObject({ state: 'draft', message: 'Edited', content: { message: 'Edited', link: null } });
    });

    it('should schedule a draft with scheduledAt and saveAsDraft false', async () => {
      const id = await create({ content: { message: 'To schedule' }, targetIds: [fb.id] });
      const at = inFuture(3600_000);
      const res = await t
        .http()
        .put(`/v1/posts/${id}`)
        .set(tenant.auth)
        .send({ scheduledAt: at, saveAsDraft: false })
        .expect(200);
      expect(res.body.post).toEqual({ id, state: 'scheduled' });
      expect((await get(id)).scheduledAt).toBe(at);
      expect(await history(id)).toEqual(['->draft', 'draft>scheduled']);
      expect(await eventTypesOf(t, id)).toEqual(['post.created', 'post.scheduled']);
      const version = (await t.ds.query<{ version: number }[]>('SELECT version FROM posts WHERE id = $1', [id]))[0]
        .version;
      expect(await (await job(`schedule:${id}:${version}`))?.getState()).toBe('delayed');
    });

    it('should keep a draft a draft when only scheduledAt is given', async () => {
      const id = await create({ content: { message: 'Stay' }, targetIds: [fb.id] });
      await t
        .http()
        .put(`/v1/posts/${id}`)
        .set(tenant.auth)
        .send({ scheduledAt: inFuture(3600_000) })
        .expect(200);
      expect((await get(id)).state).toBe('draft');
    });

    it('should reschedule a scheduled post and drop its old delayed job', async () => {
      const id = await create({
        content: { message: 'Move me' },
        targetIds: [fb.id],
        saveAsDraft: false,
        scheduledAt: inFuture(3600_000),
      });
      expect(await job(`schedule:${id}:1`)).toBeDefined();
      const later = inFuture(7200_000);
      const res = await t.http().put(`/v1/posts/${id}`).set(tenant.auth).send({ scheduledAt: later }).expect(200);
      expect(res.body.post).toEqual({ id, state: 'scheduled' });
      expect((await get(id)).scheduledAt).toBe(later);
      expect(await job(`schedule:${id}:1`)).toBeUndefined();
      expect(await (await job(`schedule:${id}:2`))?.getState()).toBe('delayed');
      expect(await history(id)).toEqual(['->scheduled', 'scheduled>scheduled']);
    });

    it('should answer invalid_state_transition for a post that is not draft or scheduled', async () => {
      const id = await create({ content: 'Queued', accountIds: [fb.id], publishNow: true });
      const res = await t
        .http()
        .put(`/v1/posts/${id}`)
        .set(tenant.auth)
        .send({ content: { message: 'Too late' } })
        .expect(400);
      expect(res.body.error.code).toBe('invalid_state_transition');
    });

    it('should check an edit against the target networks', async () => {
      const id = await create({ content: VIDEO_CONTENT, targetIds: [yt.id] });
      const res = await t
        .http()
        .put(`/v1/posts/${id}`)
        .set(tenant.auth)
        .send({ content: { videoUrl: null, message: 'no video now' } })
        .expect(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ accountId: yt.id, platform: 'youtube', field: 'content.videoUrl' }),
        ]),
      );
    });
  });

  describe('DELETE /v1/posts/{id}', () => {
    it('should cancel a scheduled post and remove its delayed job', async () => {
      const id = await create({
        content: { message: 'Cancel me' },
        targetIds: [fb.id],
        saveAsDraft: false,
        scheduledAt: inFuture(3600_000),
      });
      const res = await t.http().delete(`/v1/posts/${id}`).set(tenant.auth).expect(200);
      expect(res.body).toEqual({ message: 'Post cancelled.', id, state: 'cancelled' });
      expect(await job(`schedule:${id}:1`)).toBeUndefined();
      expect(await history(id)).toEqual(['->scheduled', 'scheduled>cancelled']);
      expect(await eventTypesOf(t, id)).toEqual(['post.cancelled', 'post.created', 'post.scheduled']);
    });

    it('should cancel a queued post', async () => {
      const id = await create({ content: 'Queued', accountIds: [fb.id], publishNow: true });
      expect(await job(`publish:${id}:1`)).toBeDefined();
      await t.http().delete(`/v1/posts/${id}`).set(tenant.auth).expect(200);
      expect((await get(id)).state).toBe('cancelled');
      expect(await job(`publish:${id}:1`)).toBeUndefined();
    });

    it('should answer invalid_state_transition for other states', async () => {
      const draft = await create({ content: 'Draft', accountIds: [fb.id] });
      expect((await t.http().delete(`/v1/posts/${draft}`).set(tenant.auth).expect(400)).body.error.code).toBe(
        'invalid_state_transition',
      );
      const cancelled = await create({ content: 'Queued', accountIds: [fb.id], publishNow: true });
      await t.http().delete(`/v1/posts/${cancelled}`).set(tenant.auth).expect(200);
      await t.http().delete(`/v1/posts/${cancelled}`).set(tenant.auth).expect(400);
    });
  });

  describe('POST /v1/posts/{id}/publish', () => {
    it('should queue a draft and a scheduled post', async () => {
      const draft = await create({ content: 'Draft', accountIds: [fb.id] });
      const res = await t.http().post(`/v1/posts/${draft}/publish`).set(tenant.auth).expect(200);
      expect(res.body.post).toEqual({ id: draft, state: 'queued' });
      expect(await job(`publish:${draft}:2`)).toBeDefined();
      const scheduled = await create({ content: 'Later', accountIds: [fb.id], scheduledAt: inFuture(3600_000) });
      await t.http().post(`/v1/posts/${scheduled}/publish`).set(tenant.auth).expect(200);
      expect(await history(scheduled)).toEqual(['->scheduled', 'scheduled>queued']);
      expect(await job(`schedule:${scheduled}:1`)).toBeUndefined();
      expect((await get(scheduled)).scheduledAt).toBeNull();
    });

    it('should answer invalid_state_transition for a queued post', async () => {
      const id = await create({ content: 'Queued', accountIds: [fb.id], publishNow: true });
      expect((await t.http().post(`/v1/posts/${id}/publish`).set(tenant.auth).expect(400)).body.error.code).toBe(
        'invalid_state_transition',
      );
    });

    it('should answer key_not_linked_to_user for a key without owner', async () => {
      const key = await createKey(t, tenant, {}, { owner: null });
      const id = await create({ content: 'Draft', accountIds: [fb.id] }, key.auth);
      expect((await t.http().post(`/v1/posts/${id}/publish`).set(key.auth).expect(400)).body.error.code).toBe(
        'key_not_linked_to_user',
      );
    });
  });

  describe('POST /v1/posts/{id}/retry', () => {
    it('should requeue a partially published post and reset only its failed targets', async () => {
      const id = await create({ content: { ...VIDEO_CONTENT }, targetIds: [fb.id, yt.id], saveAsDraft: false });
      // What the worker leaves behind: one target published, one failed.
      await t.ds.query(`UPDATE posts SET state = 'partially_published' WHERE id = $1`, [id]);
      await t.ds.query(
        `UPDATE post_targets SET status = 'success', external_id = 'fb_1', published_at = now() WHERE post_id = $1 AND account_id = $2`,
        [id, fb.id],
      );
      await t.ds.query(
        `UPDATE post_targets SET status = 'failed', error = 'Upload rejected', error_category = 'media_rejected' WHERE post_id = $1 AND account_id = $2`,
        [id, yt.id],
      );
      const res = await t.http().post(`/v1/posts/${id}/retry`).set(tenant.auth).expect(200);
      expect(res.body).toEqual({ post: { id, status: 'queued' } });
      const post = await get(id);
      expect(post.targets.find((x: { accountId: string }) => x.accountId === fb.id)).toMatchObject({
        status: 'success',
        externalId: 'fb_1',
      });
      expect(post.targets.find((x: { accountId: string }) => x.accountId === yt.id)).toMatchObject({
        status: 'pending',
        error: null,
        errorCategory: null,
      });
      const version = (await t.ds.query<{ version: number }[]>('SELECT version FROM posts WHERE id = $1', [id]))[0]
        .version;
      expect(await job(`publish:${id}:${version}`)).toBeDefined();
    });

    it('should requeue a failed post and refuse other states', async () => {
      const id = await create({ content: 'x', accountIds: [fb.id], publishNow: true });
      expect((await t.http().post(`/v1/posts/${id}/retry`).set(tenant.auth).expect(400)).body.error.code).toBe(
        'invalid_state_transition',
      );
      await t.ds.query(`UPDATE posts SET state = 'failed' WHERE id = $1`, [id]);
      await t.http().post(`/v1/posts/${id}/retry`).set(tenant.auth).expect(200);
      expect((await get(id)).state).toBe('queued');
    });
  });

  describe('approval', () => {
    let approvals: Tenant;
    let account: InsertedAccount;
    let writer: { auth: { Authorization: string } };

    beforeAll(async () => {
      approvals = await createTenant(t);
      account = await insertAccount(t, approvals, 'facebook');
      await setPolicy(t, approvals, { requireApproval: true, approverUserIds: [approvals.userId] });
      // A writer whose owner is not an approver.
      writer = await createKey(
        t,
        approvals,
        { permissions: ['posts:read', 'posts:write', 'posts:approve'] },
        // A key for another person is the operator's to make.
        { owner: await addUser(t, approvals) },
      );
    });

    const pending = async (body: object = {}) =>
      create({ content: 'Needs review', accountIds: [account.id], publishNow: true, ...body }, writer.auth);

    it('should approve a pending post and continue to queued', async () => {
      const id = await pending();
      expect((await get(id, approvals.auth)).state).toBe('pending_approval');
      const res = await t.http().post(`/v1/posts/${id}/approve`).set(approvals.auth).expect(200);
      expect(res.body.post).toEqual({ id, state: 'queued' });
      expect(await history(id, approvals.auth)).toEqual([
        '->pending_approval',
        'pending_approval>approved',
        'approved>queued',
      ]);
      expect(await eventTypesOf(t, id)).toEqual(['approval.approved', 'approval.requested', 'post.created']);
    });

    it('should approve a post with a future scheduledAt into scheduled', async () => {
      const id = await pending({ publishNow: undefined, scheduledAt: inFuture(3600_000) });
      const res = await t.http().post(`/v1/posts/${id}/approve`).set(approvals.auth).expect(200);
      expect(res.body.post.state).toBe('scheduled');
      expect(await eventTypesOf(t, id)).toEqual([
        'approval.approved',
        'approval.requested',
        'post.created',
        'post.scheduled',
      ]);
    });

    it('should send a published draft for approval', async () => {
      const id = await create({ content: 'Draft', accountIds: [account.id] }, writer.auth);
      const res = await t.http().post(`/v1/posts/${id}/publish`).set(writer.auth).expect(200);
      expect(res.body.post.state).toBe('pending_approval');
    });

    it('should answer 403 insufficient_permission when the key owner is not an approver', async () => {
      const id = await pending();
      const res = await t.http().post(`/v1/posts/${id}/approve`).set(writer.auth).expect(403);
      expect(res.body.error.code).toBe('insufficient_permission');
      await t.http().post(`/v1/posts/${id}/reject`).set(writer.auth).send({}).expect(403);
    });

    it('should require the posts:approve permission', async () => {
      const id = await pending();
      const key = await createKey(t, approvals, { permissions: ['posts:read', 'posts:write'] });
      const res = await t.http().post(`/v1/posts/${id}/approve`).set(key.auth).expect(403);
      expect(res.body.error).toMatchObject({ code: 'insufficient_permission', details: { required: 'posts:approve' } });
    });

    it('should reject a pending post with a reason', async () => {
      const id = await pending();
      const res = await t
        .http()
        .post(`/v1/posts/${id}/reject`)
        .set(approvals.auth)
        .send({ reason: 'Off brand' })
        .expect(200);
      expect(res.body.post).toEqual({ id, state: 'rejected' });
      const h = (await t.http().get(`/v1/posts/${id}/history`).set(approvals.auth).expect(200)).body.history;
      expect(h[1]).toMatchObject({
        from: 'pending_approval',
        to: 'rejected',
        reason: 'rejected: Off brand',
        actor: { userId: approvals.userId },
      });
      const [event] = await t.ds.query<{ data: { reason: string } }[]>(
        `SELECT data FROM events WHERE type = 'approval.rejected' AND data->>'postId' = $1`,
        [id],
      );
      expect(event.data.reason).toBe('Off brand');
      expect((await t.http().post(`/v1/posts/${id}/approve`).set(approvals.auth).expect(400)).body.error.code).toBe(
        'invalid_state_transition',
      );
    });
  });
});
