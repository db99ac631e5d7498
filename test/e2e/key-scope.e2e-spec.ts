import { randomUUID } from 'node:crypto';
import { RequestLogService } from '@/common/logging/request-log.service';
import { createKey, expectError, sql } from '@test/support/e2e-helpers';
import { addUser, createPost, setPolicy } from '@test/support/post-fixtures';
import { createApiApp, Tenant, TestApp } from '@test/support/test-app';
import { insertAccount, InsertedAccount } from '@test/support/publishing';

/**
 * A key restricted to accounts sees only posts whose targets are all
 * within its accounts (and only events and deliveries about them); a key limited to profiles
 * neither sees nor changes account-scope subscriptions.
 */
describe('scope inside a workspace', () => {
  let t: TestApp;
  let tenant: Tenant;
  let a: InsertedAccount;
  let b: InsertedAccount;
  let restricted: { id: string; auth: { Authorization: string } };
  const posts: Record<'onlyA' | 'onlyB' | 'both' | 'failedB', string> = {
    onlyA: '',
    onlyB: '',
    both: '',
    failedB: '',
  };

  beforeAll(async () => {
    ({ t, tenant } = await createApiApp());
    a = await insertAccount(t, tenant, 'facebook');
    b = await insertAccount(t, tenant, 'facebook');
    const create = async (accountIds: string[]) =>
      (await createPost(t, tenant.auth, { content: 'Hello', accountIds }).expect(201)).body.id as string;
    posts.onlyA = await create([a.id]);
    posts.onlyB = await create([b.id]);
    posts.both = await create([a.id, b.id]);
    posts.failedB = await create([b.id]);
    await sql(t, `UPDATE posts SET state = 'failed' WHERE id = $1`, [posts.failedB]);
    restricted = await createKey(t, tenant, { accountIds: [a.id] });
  });
  afterAll(async () => t.close());

  const as = (auth: { Authorization: string }) => ({
    get: (path: string) => t.http().get(path).set(auth),
    post: (path: string, body: object = {}) => t.http().post(path).set(auth).send(body),
    put: (path: string, body: object) => t.http().put(path).set(auth).send(body),
    patch: (path: string, body: object) => t.http().patch(path).set(auth).send(body),
    delete: (path: string) => t.http().delete(path).set(auth),
  });

  it('lists only posts whose targets are all within the key accounts, with a total that agrees', async () => {
    const res = await as(restricted.auth).get('/v1/posts').expect(200);
    expect((res.body.posts as { id: string }[]).map((p) => p.id)).toEqual([posts.onlyA]);
    expect(res.body.total).toBe(1);
    expect(res.body.hasMore).toBe(false);
    const filtered = await as(restricted.auth).get('/v1/posts?platform=facebook&state=draft').expect(200);
    expect(filtered.body.total).toBe(1);
    // The unrestricted key still sees all four.
    expect((await as(tenant.auth).get('/v1/posts').expect(200)).body.total).toBe(4);
  });

  it('answers every read and write of another account post exactly like a missing post', async () => {
    const r = as(restricted.auth);
    for (const id of [posts.onlyB, posts.both]) {
      expectError(await r.get(`/v1/posts/${id}`), 404, 'not_found');
      expectError(await r.get(`/v1/posts/${id}/history`), 404, 'not_found');
      expectError(await r.put(`/v1/posts/${id}`, { content: { message: 'Edited' } }), 404, 'not_found');
      expectError(await r.post(`/v1/posts/${id}/publish`), 404, 'not_found');
      expectError(await r.delete(`/v1/posts/${id}`), 404, 'not_found');
      expectError(await r.post(`/v1/posts/${id}/approve`), 404, 'not_found');
      expectError(await r.post(`/v1/posts/${id}/reject`, { reason: 'no' }), 404, 'not_found');
    }
    expectError(await r.post(`/v1/posts/${posts.failedB}/retry`), 404, 'not_found');
    const missing = await r.get(`/v1/posts/${randomUUID()}`);
    const other = await r.get(`/v1/posts/${posts.onlyB}`);
    expect(other.body.error.message.replace(posts.onlyB, 'ID')).toBe(
      missing.body.error.message.replace(/[0-9a-f-]{36}/, 'ID'),
    );
    // Nothing changed.
    const rows = await sql<{ state: string; message: string }>(t, 'SELECT state, message FROM posts WHERE id = $1', [
      posts.onlyB,
    ]);
    expect(rows[0]).toEqual({ state: 'draft', message: 'Hello' });
    // Its own post stays reachable.
    await r.get(`/v1/posts/${posts.onlyA}`).expect(200);
    await r.put(`/v1/posts/${posts.onlyA}`, { content: { message: 'Mine' } }).expect(200);
  });

  it('cannot approve another account post even with an approver as owner', async () => {
    const approver = await addUser(t, tenant);
    await setPolicy(t, tenant, { requireApproval: true, approverUserIds: [approver] });
    const approverKey = await createKey(t, tenant, { accountIds: [a.id] }, { owner: approver });
    await as(tenant.auth).post(`/v1/posts/${posts.both}/publish`);
    expectError(await as(approverKey.auth).post(`/v1/posts/${posts.both}/approve`), 404, 'not_found');
    await setPolicy(t, tenant, { requireApproval: false, approverUserIds: [] });
  });

  it('shows only events about its accounts and posts', async () => {
    const res = await as(restricted.auth).get('/v1/events?limit=100').expect(200);
    const events = res.body.events as { type: string; data: Record<string, unknown> }[];
    const postIds = new Set(events.map((e) => e.data.postId).filter(Boolean));
    expect(postIds.has(posts.onlyA)).toBe(true);
    expect(postIds.has(posts.onlyB)).toBe(false);
    expect(postIds.has(posts.both)).toBe(false);
    expect(res.body.total).toBe(events.length);
    const all = await as(tenant.auth).get('/v1/events?limit=100').expect(200);
    expect((all.body.events as { data: { postId?: string } }[]).some((e) => e.data.postId === posts.onlyB)).toBe(true);
  });

  it('reads live analytics of its own posts only', async () => {
    expectError(await as(restricted.auth).get(`/v1/analytics?postId=${posts.both}`), 404, 'not_found');
    expectError(await as(restricted.auth).get(`/v1/analytics?accountId=${b.id}`), 404, 'not_found');
  });

  it('lists and redelivers only deliveries of events it may see', async () => {
    const sub = await as(tenant.auth)
      .post('/v1/webhooks')
      .send({ url: 'http://127.0.0.1:9/hooks', events: ['*'] })
      .expect(201);
    const subId = sub.body.subscription.id as string;
    const events = await sql<{ id: string; type: string; data: Record<string, unknown> }>(
      t,
      `SELECT id, type, data FROM events WHERE data->>'postId' = ANY($1) AND type = 'post.created'`,
      [[posts.onlyA, posts.onlyB]],
    );
    const deliveryOf: Record<string, string> = {};
    for (const e of events) {
      const id = randomUUID();
      deliveryOf[e.data.postId as string] = id;
      await sql(
        t,
        `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, type, payload, event_created_at, status, attempts)
         VALUES ($1, $2, $3, $4, $5, $6, now(), 'abandoned', 7)`,
        [id, tenant.workspaceId, subId, e.id, e.type, e.data],
      );
    }
    const list = await as(restricted.auth).get(`/v1/webhooks/${subId}/deliveries`).expect(200);
    expect((list.body.deliveries as { id: string }[]).map((d) => d.id)).toEqual([deliveryOf[posts.onlyA]]);
    expect(list.body.total).toBe(1);
    expectError(
      await as(restricted.auth).post(`/v1/webhooks/${subId}/deliveries/${deliveryOf[posts.onlyB]}/retry`),
      404,
      'not_found',
    );
    // A restricted key cannot choose where every account's events go.
    expectError(
      await as(restricted.auth)
        .post('/v1/webhooks')
        .send({ url: 'http://127.0.0.1:9/x', events: ['*'] }),
      403,
      'account_not_allowed',
    );
    expectError(
      await as(restricted.auth).patch(`/v1/webhooks/${subId}`, { url: 'http://127.0.0.1:9/y' }),
      403,
      'account_not_allowed',
    );
    const [row] = await sql<{ url: string }>(t, 'SELECT url FROM webhook_subscriptions WHERE id = $1', [subId]);
    expect(row.url).toBe('http://127.0.0.1:9/hooks');
  });

  it('shows a key restricted to accounts only its own request log', async () => {
    await as(tenant.auth).get('/v1/profile').expect(200);
    await t.app.get(RequestLogService).flush();
    const res = await as(restricted.auth).get('/v1/logs?limit=100').expect(200);
    const keyIds = new Set((res.body.logs as { keyId: string }[]).map((l) => l.keyId));
    expect([...keyIds]).toEqual([restricted.id]);
    const all = await as(tenant.auth).get('/v1/logs?limit=100').expect(200);
    expect((all.body.logs as { keyId: string }[]).some((l) => l.keyId === tenant.keyId)).toBe(true);
  });
});

describe('profile-limited keys and account-scope subscriptions', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => ({ t, tenant } = await createApiApp()));
  afterAll(async () => t.close());

  it('neither sees nor changes an account-scope subscription', async () => {
    const wide = await t
      .http()
      .post('/v1/webhooks')
      .set(tenant.auth)
      .send({ url: 'http://127.0.0.1:9/all', events: ['*'], scope: 'account' })
      .expect(201);
    const narrow = await t
      .http()
      .post('/v1/webhooks')
      .set(tenant.auth)
      .send({ url: 'http://127.0.0.1:9/one', events: ['*'] })
      .expect(201);
    const id = wide.body.subscription.id as string;
    const deliveryId = randomUUID();
    await sql(
      t,
      `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, type, payload, event_created_at, status, attempts)
       VALUES ($1, $2, $3, NULL, 'post.created', '{}', now(), 'abandoned', 1)`,
      [deliveryId, tenant.workspaceId, id],
    );
    const limited = await createKey(t, tenant, { profileIds: [tenant.profileId] });
    const http = () => t.http();
    const list = await http().get('/v1/webhooks').set(limited.auth).expect(200);
    expect((list.body.webhooks as { id: string }[]).map((w) => w.id)).toEqual([narrow.body.subscription.id]);
    expect(list.body.total).toBe(1);
    expectError(await http().get(`/v1/webhooks/${id}`).set(limited.auth), 404, 'not_found');
    expectError(await http().get(`/v1/webhooks/${id}/deliveries`).set(limited.auth), 404, 'not_found');
    expectError(
      await http().patch(`/v1/webhooks/${id}`).set(limited.auth).send({ url: 'http://127.0.0.1:9/mine' }),
      404,
      'not_found',
    );
    expectError(await http().post(`/v1/webhooks/${id}/rotate-secret`).set(limited.auth), 404, 'not_found');
    expectError(
      await http().post(`/v1/webhooks/${id}/deliveries/${deliveryId}/retry`).set(limited.auth),
      404,
      'not_found',
    );
    expectError(
      await http().post(`/v1/webhooks/${id}/test`).set(limited.auth).send({ eventType: 'post.created' }),
      404,
      'not_found',
    );
    expectError(await http().delete(`/v1/webhooks/${id}`).set(limited.auth), 404, 'not_found');
    const [row] = await sql<{ url: string; deleted_at: Date | null }>(
      t,
      'SELECT url, deleted_at FROM webhook_subscriptions WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ url: 'http://127.0.0.1:9/all', deleted_at: null });
    // The workspace-wide key still manages it.
    await http().get(`/v1/webhooks/${id}`).set(tenant.auth).expect(200);
  });
});
