import { OutboxService } from '@/common/outbox/outbox.service';
import { SecretBox } from '@/common/crypto/secret-box';
import { WebhookSubscriptionEntity } from '@/modules/webhooks/entities/webhook-subscription.entity';
import { WEBHOOK_EVENT_TYPES } from '@/modules/webhooks/event-types';
import { createTenant, createTestApp, eventually, Tenant, TestApp } from '@test/support/test-app';
import { WebhookReceiver, startAppAndReceiver, closeAppAndReceiver } from '@test/support/webhook-receiver';

/** Subscription management: CRUD, validation, plan gating, tenancy, URL rules, OpenAPI. */
describe('webhook subscriptions API', () => {
  let t: TestApp;
  let tenant: Tenant;
  const url = 'http://127.0.0.1:9/hooks';

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => t.close());

  const create = (who: Tenant, body: Record<string, unknown>) => t.http().post('/v1/webhooks').set(who.auth).send(body);

  it('should create a subscription and show its whsec_ secret only once', async () => {
    const res = await create(tenant, {
      url,
      events: ['post.published', 'post.failed'],
    }).expect(201);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{20,}$/);
    expect(res.body.subscription).toEqual({
      id: expect.any(String),
      profileId: tenant.profileId,
      url,
      events: ['post.published', 'post.failed'],
      scope: 'profile',
      isActive: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const id = res.body.subscription.id as string;

    const list = await t.http().get('/v1/webhooks').set(tenant.auth).expect(200);
    expect(list.body).toMatchObject({ page: 1, limit: 20, hasMore: false });
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).toContain(id);
    const one = await t.http().get(`/v1/webhooks/${id}`).set(tenant.auth).expect(200);
    expect(one.body.subscription.id).toBe(id);
    for (const body of [list.text, one.text]) {
      expect(body).not.toContain('whsec_');
      expect(body).not.toMatch(/secret/i);
    }
    // Stored sealed, never in clear.
    const row = await t.ds.getRepository(WebhookSubscriptionEntity).findOneByOrFail({ id });
    expect(row.secretEnc).not.toContain(res.body.secret);
    expect(t.app.get(SecretBox).open(row.secretEnc)).toBe(res.body.secret);
  });

  it('should update url, events and isActive, then delete (404 afterwards)', async () => {
    const { body } = await create(tenant, {
      url,
      events: ['*'],
      scope: 'account',
    }).expect(201);
    const id = body.subscription.id as string;
    expect(body.subscription).toMatchObject({
      events: ['*'],
      scope: 'account',
    });

    const patched = await t
      .http()
      .patch(`/v1/webhooks/${id}`)
      .set(tenant.auth)
      .send({
        url: 'http://127.0.0.1:9/other',
        events: ['post.created'],
        isActive: false,
      })
      .expect(200);
    expect(patched.body.subscription).toMatchObject({
      url: 'http://127.0.0.1:9/other',
      events: ['post.created'],
      isActive: false,
      scope: 'account',
    });
    const wildcardAndMore = await t
      .http()
      .patch(`/v1/webhooks/${id}`)
      .set(tenant.auth)
      .send({ events: ['post.created', '*'] })
      .expect(200);
    expect(wildcardAndMore.body.subscription.events).toEqual(['*']);

    await t.http().delete(`/v1/webhooks/${id}`).set(tenant.auth).expect(200, { id, deleted: true });
    await t.http().get(`/v1/webhooks/${id}`).set(tenant.auth).expect(404);
    await t.http().delete(`/v1/webhooks/${id}`).set(tenant.auth).expect(404);
    const list = await t.http().get('/v1/webhooks').set(tenant.auth).expect(200);
    expect(list.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(id);
  });

  it('should write an audit row for every change, without secrets', async () => {
    const { body } = await create(tenant, {
      url,
      events: ['post.created'],
    }).expect(201);
    const id = body.subscription.id as string;
    await t.http().patch(`/v1/webhooks/${id}`).set(tenant.auth).send({ isActive: false }).expect(200);
    const rotated = await t.http().post(`/v1/webhooks/${id}/rotate-secret`).set(tenant.auth).expect(200);
    await t.http().delete(`/v1/webhooks/${id}`).set(tenant.auth).expect(200);
    const events = await t.http().get('/v1/events').set(tenant.auth).query({ limit: 100 }).expect(200);
    const mine = (events.body.events as { type: string; data: Record<string, unknown> }[]).filter((e) =>
      JSON.stringify(e.data).includes(id),
    );
    expect(mine.map((e) => e.type).sort()).toEqual([
      'webhook.created',
      'webhook.deleted',
      'webhook.secret_rotated',
      'webhook.updated',
    ]);
    expect(events.text).not.toContain(body.secret);
    expect(events.text).not.toContain(rotated.body.secret);
  });

  it.each([
    [{ url: 'not a url', events: ['post.created'] }, 'url'],
    [{ url: 'ftp://127.0.0.1/x', events: ['post.created'] }, 'url'],
    [{ events: ['post.created'] }, 'url'],
    [{ url, events: [] }, 'events'],
    [{ url, events: ['post.exploded'] }, 'events'],
    [{ url, events: ['webhook.created'] }, 'events'],
    [{ url, events: 'post.created' }, 'events'],
    [{ url, events: ['post.created', 'post.created'] }, 'events'],
    [{ url }, 'events'],
    [{ url, events: ['post.created'], scope: 'galaxy' }, 'scope'],
    [{ url, events: ['post.created'], secret: 'whsec_mine' }, 'secret'],
  ])('should answer 400 invalid_request naming the field for %j', async (body, field) => {
    const res = await create(tenant, body).expect(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.details.field).toBe(field);
    expect(res.body.error.message).toContain(field);
  });

  it('should validate PATCH and test bodies too', async () => {
    const { body } = await create(tenant, {
      url,
      events: ['post.created'],
    }).expect(201);
    const id = body.subscription.id as string;
    const bad = await t.http().patch(`/v1/webhooks/${id}`).set(tenant.auth).send({ isActive: 'no' }).expect(400);
    expect(bad.body.error.details.field).toBe('isActive');
    const badTest = await t
      .http()
      .post(`/v1/webhooks/${id}/test`)
      .set(tenant.auth)
      .send({ eventType: '*' })
      .expect(400);
    expect(badTest.body.error.details.field).toBe('eventType');
    const badFilter = await t
      .http()
      .get(`/v1/webhooks/${id}/deliveries`)
      .set(tenant.auth)
      .query({ status: 'lost' })
      .expect(400);
    expect(badFilter.body.error.details.field).toBe('status');
  });

  it('should accept every catalogue type (14) and the wildcard', async () => {
    expect(WEBHOOK_EVENT_TYPES).toHaveLength(14);
    await create(tenant, { url, events: [...WEBHOOK_EVENT_TYPES] }).expect(201);
  });

  it('should answer 403 plan_limit on a plan without webhooks', async () => {
    const starter = await createTenant(t, { plan: 'starter' });
    for (const res of [
      await create(starter, { url, events: ['post.created'] }),
      await t.http().get('/v1/webhooks').set(starter.auth),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('plan_limit');
      expect(res.body.error.details).toMatchObject({ entitlement: 'webhooks' });
    }
  });

  it('should answer 403 insufficient_permission without webhooks:write', async () => {
    const key = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .send({ name: 'reader', permissions: ['webhooks:read'] })
      .expect(201);
    const reader = { Authorization: `Bearer ${key.body.secret}` };
    await t.http().get('/v1/webhooks').set(reader).expect(200);
    const res = await t
      .http()
      .post('/v1/webhooks')
      .set(reader)
      .send({ url, events: ['post.created'] })
      .expect(403);
    expect(res.body.error).toMatchObject({
      code: 'insufficient_permission',
      details: { required: 'webhooks:write' },
    });
  });

  it("should answer 404 for another tenant's or another profile's subscription", async () => {
    const { body } = await create(tenant, {
      url,
      events: ['post.created'],
    }).expect(201);
    const id = body.subscription.id as string;
    const other = await createTenant(t);
    const profile = await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Second' }).expect(201);
    const otherProfile = {
      auth: tenant.auth,
      query: { profileId: profile.body.profile.id as string },
    };
    const calls = [
      (h: Record<string, string>, q: Record<string, string> = {}) => t.http().get(`/v1/webhooks/${id}`).set(h).query(q),
      (h: Record<string, string>, q: Record<string, string> = {}) =>
        t.http().patch(`/v1/webhooks/${id}`).set(h).query(q).send({ isActive: false }),
      (h: Record<string, string>, q: Record<string, string> = {}) =>
        t.http().delete(`/v1/webhooks/${id}`).set(h).query(q),
      (h: Record<string, string>, q: Record<string, string> = {}) =>
        t.http().post(`/v1/webhooks/${id}/rotate-secret`).set(h).query(q),
      (h: Record<string, string>, q: Record<string, string> = {}) =>
        t.http().post(`/v1/webhooks/${id}/test`).set(h).query(q).send({ eventType: 'post.created' }),
      (h: Record<string, string>, q: Record<string, string> = {}) =>
        t.http().get(`/v1/webhooks/${id}/deliveries`).set(h).query(q),
      (h: Record<string, string>, q: Record<string, string> = {}) =>
        t.http().post(`/v1/webhooks/${id}/deliveries/${id}/retry`).set(h).query(q),
    ];
    for (const call of calls) {
      const a = await call(other.auth);
      expect([a.status, a.body.error?.code]).toEqual([404, 'not_found']);
      const b = await call(otherProfile.auth, otherProfile.query);
      expect([b.status, b.body.error?.code]).toEqual([404, 'not_found']);
    }
    const otherList = await t.http().get('/v1/webhooks').set(other.auth).expect(200);
    expect(otherList.body.webhooks).toEqual([]);
    // Still there, unchanged, for its owner.
    const mine = await t.http().get(`/v1/webhooks/${id}`).set(tenant.auth).expect(200);
    expect(mine.body.subscription.isActive).toBe(true);
    await t.http().get(`/v1/webhooks/not-a-uuid`).set(tenant.auth).expect(404);
  });

  it("should refuse an 'account' scope subscription for a key restricted to profiles", async () => {
    const key = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .send({
        name: 'scoped',
        permissions: ['webhooks:write', 'webhooks:read'],
        profileIds: [tenant.profileId],
      })
      .expect(201);
    const scoped = { Authorization: `Bearer ${key.body.secret}` };
    const res = await t
      .http()
      .post('/v1/webhooks')
      .set(scoped)
      .send({ url, events: ['*'], scope: 'account' })
      .expect(403);
    expect(res.body.error.code).toBe('profile_not_accessible');
    await t
      .http()
      .post('/v1/webhooks')
      .set(scoped)
      .send({ url, events: ['*'] })
      .expect(201);
  });

  it('should describe the signature scheme in the OpenAPI document', async () => {
    const doc = (await t.http().get('/openapi.json').expect(200)).body as {
      tags: { name: string; description?: string }[];
      paths: Record<string, unknown>;
      'x-webhooks': Record<string, { post: { parameters: { name: string }[] } }>;
    };
    const tag = doc.tags.find((x) => x.name === 'Webhooks');
    expect(tag?.description).toContain('Service-Signature: t=<unix>,v1=<hex>');
    expect(tag?.description).toContain('300 s');
    expect(doc['x-webhooks'].event.post.parameters.map((p) => p.name)).toEqual([
      'Service-Signature',
      'Service-Event',
      'Service-Event-Id',
      'Service-Delivery-Attempt',
    ]);
    for (const p of [
      '/v1/webhooks',
      '/v1/webhooks/{id}',
      '/v1/webhooks/{id}/rotate-secret',
      '/v1/webhooks/{id}/test',
      '/v1/webhooks/{id}/deliveries',
      '/v1/webhooks/{id}/deliveries/{deliveryId}/retry',
    ]) {
      expect(doc.paths[p]).toBeDefined();
    }
  });
});

describe('webhook URLs when private addresses are not allowed', () => {
  let t: TestApp;
  let tenant: Tenant;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ({ t, receiver } = await startAppAndReceiver({
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false', WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100,100' },
    }));
    tenant = await createTenant(t);
  });
  afterAll(() => closeAppAndReceiver(t, receiver));

  it.each([
    'https://127.0.0.1/hook',
    'https://10.1.2.3/hook',
    'https://169.254.169.254/latest',
    'https://[::1]/hook',
    'https://192.168.0.1/',
    'https://localhost/hook',
    'https://[::ffff:127.0.0.1]/',
  ])('should refuse %s with 400 invalid_request', async (target) => {
    const res = await t
      .http()
      .post('/v1/webhooks')
      .set(tenant.auth)
      .send({ url: target, events: ['post.created'] })
      .expect(400);
    expect(res.body.error).toMatchObject({
      code: 'invalid_request',
      details: { field: 'url' },
    });
    expect(res.body.error.message).toMatch(/private, loopback or link-local/);
  });

  it('should refuse plain http', async () => {
    const res = await t
      .http()
      .post('/v1/webhooks')
      .set(tenant.auth)
      .send({ url: 'http://93.184.216.34/hook', events: ['post.created'] })
      .expect(400);
    expect(res.body.error.message).toMatch(/https/);
  });

  it('should refuse a private URL on PATCH too', async () => {
    const sub = await t.ds.getRepository(WebhookSubscriptionEntity).save({
      workspaceId: tenant.workspaceId,
      profileId: tenant.profileId,
      url: 'https://93.184.216.34/hook',
      events: ['*'],
      scope: 'profile',
      isActive: false,
      secretEnc: t.app.get(SecretBox).seal('whsec_x'),
    });
    const res = await t
      .http()
      .patch(`/v1/webhooks/${sub.id}`)
      .set(tenant.auth)
      .send({ url: 'https://127.0.0.1/hook' })
      .expect(400);
    expect(res.body.error.details.field).toBe('url');
  });

  it('should check the address again at send time and never reach a private receiver', async () => {
    // A row that slipped past creation (e.g. DNS changed since): the connect-time guard still holds.
    const sub = await t.ds.getRepository(WebhookSubscriptionEntity).save({
      workspaceId: tenant.workspaceId,
      profileId: tenant.profileId,
      url: receiver.url('/private'),
      events: ['*'],
      scope: 'profile',
      isActive: true,
      secretEnc: t.app.get(SecretBox).seal('whsec_x'),
    });
    await t.ds.transaction((m) =>
      t.app.get(OutboxService).record(m, {
        workspaceId: tenant.workspaceId,
        profileId: tenant.profileId,
        type: 'post.created',
        actor: { type: 'system', id: null },
        data: {
          postId: '00000000-0000-4000-8000-000000000001',
          status: 'draft',
        },
      }),
    );
    const res = await eventually(async () => {
      const r = await t.http().get(`/v1/webhooks/${sub.id}/deliveries`).set(tenant.auth).expect(200);
      return r.body.deliveries[0]?.status === 'abandoned' ? r : undefined;
    });
    expect(res.body.deliveries[0]).toMatchObject({
      attempts: 7,
      responseCode: null,
    });
    expect(res.body.deliveries[0].error).toMatch(/not a public unicast address/);
    expect(receiver.at('/private')).toHaveLength(0);
  });
});
