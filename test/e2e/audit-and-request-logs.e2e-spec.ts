import { RequestLogService } from '@/common/logging/request-log.service';
import {
  createKey,
  expectError,
  expectMalformedJson,
  pgClient,
  postMalformedJson,
  waitUntilBlocked,
} from '@test/support/e2e-helpers';
import { createTenant, createTestApp, eventually, Tenant, TestApp } from '@test/support/test-app';

interface LogRow {
  id: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  keyId: string;
  createdAt: string;
}

describe('audit events and request logs', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => t.close());

  describe('GET /v1/events', () => {
    beforeAll(async () => {
      for (let i = 0; i < 24; i++)
        await t
          .http()
          .put('/v1/policy')
          .set(tenant.auth)
          .send({ blockedTerms: [`term-${i}`] })
          .expect(200);
    });

    it('should list the audit trail newest first with actor and data', async () => {
      const res = await t.http().get('/v1/events').set(tenant.auth).expect(200);
      expect(res.body).toMatchObject({ page: 1, limit: 20, total: 26, hasMore: true });
      expect(res.body.events).toHaveLength(20);
      const [newest] = res.body.events;
      expect(newest).toEqual({
        id: expect.any(String),
        type: 'policy.updated',
        createdAt: expect.any(String),
        actor: { type: 'api_key', id: tenant.keyId, userId: tenant.userId },
        data: expect.objectContaining({ profileId: tenant.profileId }),
      });
      expect(newest.data.policy.blockedTerms).toEqual(['term-23']);
      const times = res.body.events.map((e: { createdAt: string }) => Date.parse(e.createdAt));
      expect([...times].sort((x, y) => y - x)).toEqual(times);
    });

    it('should paginate with page and limit, total and hasMore', async () => {
      const p2 = await t.http().get('/v1/events?page=2').set(tenant.auth).expect(200);
      expect(p2.body).toMatchObject({ page: 2, limit: 20, total: 26, hasMore: false });
      expect(p2.body.events).toHaveLength(6);
      // Bootstrap writes the workspace and its first key (issueApiKey) in one transaction.
      expect(
        p2.body.events
          .slice(-2)
          .map((e: { type: string }) => e.type)
          .sort(),
      ).toEqual(['api_key.created', 'workspace.created']);
      const small = await t.http().get('/v1/events?page=3&limit=10').set(tenant.auth).expect(200);
      expect(small.body).toMatchObject({ page: 3, limit: 10, total: 26, hasMore: false });
      expect(small.body.events).toHaveLength(6);
      const beyond = await t.http().get('/v1/events?page=9').set(tenant.auth).expect(200);
      expect(beyond.body).toMatchObject({ events: [], page: 9, total: 26, hasMore: false });
      const all = new Set<string>();
      for (let page = 1; page <= 3; page++) {
        const r = await t.http().get(`/v1/events?page=${page}&limit=10`).set(tenant.auth).expect(200);
        for (const e of r.body.events) all.add(e.id);
      }
      expect(all.size).toBe(26);
    });

    it('should clamp limit to 100 without error, and refuse limits and pages below 1', async () => {
      const res = await t.http().get('/v1/events?limit=1000').set(tenant.auth).expect(200);
      expect(res.body).toMatchObject({ limit: 100, total: 26, hasMore: false });
      expect(res.body.events).toHaveLength(26);
      const keys = await t.http().get('/v1/api-keys?limit=101').set(tenant.auth).expect(200);
      expect(keys.body.limit).toBe(100);
      const profiles = await t.http().get('/v1/profiles?limit=5000').set(tenant.auth).expect(200);
      expect(profiles.body.limit).toBe(100);
      expect(
        expectError(await t.http().get('/v1/events?limit=0').set(tenant.auth), 400, 'invalid_request').details,
      ).toEqual({ field: 'limit' });
      expect(
        expectError(await t.http().get('/v1/events?page=0').set(tenant.auth), 400, 'invalid_request').details,
      ).toEqual({ field: 'page' });
      expect(
        expectError(await t.http().get('/v1/logs?limit=ten').set(tenant.auth), 400, 'invalid_request').message,
      ).toBe('limit must be an integer');
    });

    it('should filter by type', async () => {
      const res = await t.http().get('/v1/events?type=workspace.created').set(tenant.auth).expect(200);
      expect(res.body.total).toBe(1);
      expect(res.body.events[0].data).toMatchObject({ workspaceId: tenant.workspaceId, plan: 'pro' });
      expect((await t.http().get('/v1/events?type=nothing.like.this').set(tenant.auth).expect(200)).body).toMatchObject(
        { events: [], total: 0, hasMore: false },
      );
    });

    it('should write the event in the transaction of the change (no change without its event)', async () => {
      await t.ds.query('ALTER TABLE events RENAME TO events_hidden_for_test');
      try {
        expectError(
          await t
            .http()
            .put('/v1/policy')
            .set(tenant.auth)
            .send({ blockedTerms: ['never-saved'] }),
          500,
          'internal_error',
        );
      } finally {
        await t.ds.query('ALTER TABLE events_hidden_for_test RENAME TO events');
      }
      expect((await t.http().get('/v1/policy').set(tenant.auth).expect(200)).body.policy.blockedTerms).toEqual([
        'term-23',
      ]);
    });

    it('should relay committed events to the queue (outbox dispatched)', async () => {
      const created = await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Relayed' }).expect(201);
      await eventually(async () => {
        const rows = await t.ds.query<{ dispatched_at: Date | null }[]>(
          `SELECT dispatched_at FROM events WHERE type = 'profile.created' AND profile_id = $1`,
          [created.body.profile.id],
        );
        return rows[0]?.dispatched_at;
      });
    });

    it("should show only the resolved profile's events", async () => {
      const other = (await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Other' }).expect(201)).body
        .profile.id;
      await t
        .http()
        .put(`/v1/policy?profileId=${other}`)
        .set(tenant.auth)
        .send({ blockedTerms: ['other'] })
        .expect(200);
      const res = await t.http().get(`/v1/events?profileId=${other}`).set(tenant.auth).expect(200);
      expect(res.body.events.map((e: { type: string }) => e.type).sort()).toEqual([
        'policy.updated',
        'profile.created',
      ]);
      const home = await t.http().get('/v1/events?type=policy.updated&limit=100').set(tenant.auth).expect(200);
      expect(
        home.body.events.every((e: { data: { profileId: string } }) => e.data.profileId === tenant.profileId),
      ).toBe(true);
    });
  });

  describe('GET /v1/logs', () => {
    let logTenant: Tenant;
    beforeAll(async () => {
      logTenant = await createTenant(t);
    });

    const logsOf = async (
      query = '',
    ): Promise<{ logs: LogRow[]; total: number; limit: number; page: number; hasMore: boolean }> =>
      (await t.http().get(`/v1/logs${query}`).set(logTenant.auth).expect(200)).body;

    it('should record one row per request (no bodies, no secrets), soon after it finishes', async () => {
      const ok = await t
        .http()
        .post('/v1/profiles?profileId=' + logTenant.profileId)
        .set(logTenant.auth)
        .send({ name: 'top-secret-name' })
        .expect(201);
      const missing = await t
        .http()
        .get('/v1/profiles/3fa85f64-5717-4562-b3fc-2c963f66afa6')
        .set(logTenant.auth)
        .expect(404);
      const rows = await eventually(async () => {
        const body = await logsOf('?limit=100');
        const mine = body.logs.filter((l) =>
          [ok.headers['x-request-id'], missing.headers['x-request-id']].includes(l.requestId),
        );
        return mine.length === 2 ? mine : undefined;
      });
      const created = rows.find((l) => l.requestId === ok.headers['x-request-id'])!;
      expect(created).toEqual({
        id: expect.any(String),
        requestId: ok.headers['x-request-id'],
        method: 'POST',
        path: '/v1/profiles',
        status: 201,
        durationMs: expect.any(Number),
        keyId: logTenant.keyId,
        createdAt: expect.any(String),
      });
      expect(created.durationMs).toBeGreaterThanOrEqual(0);
      expect(rows.find((l) => l.requestId === missing.headers['x-request-id'])).toMatchObject({
        method: 'GET',
        status: 404,
      });
      const text = JSON.stringify(await logsOf('?limit=100'));
      expect(text).not.toContain('top-secret-name');
      expect(text).not.toContain(logTenant.apiKey);
    });

    it('should record refusals after authentication too (403, 429, and before the routes 400, 413, 404) under the key', async () => {
      const reader = await createKey(t, logTenant, { permissions: ['profiles:read'] });
      const refused = await t.http().put('/v1/policy').set(reader.auth).send({}).expect(403);
      const row = await eventually(async () =>
        (await logsOf('?status=403')).logs.find((l) => l.requestId === refused.headers['x-request-id']),
      );
      expect(row).toMatchObject({ keyId: reader.id, method: 'PUT', path: '/v1/policy', status: 403 });
      const slow = await createKey(t, logTenant, { rateLimitPerMinute: 1 });
      await t.http().get('/v1/profile').set(slow.auth).expect(200);
      const limited = await t.http().get('/v1/profile').set(slow.auth).expect(429);
      const limitedRow = await eventually(async () =>
        (await logsOf('?status=429')).logs.find((l) => l.requestId === limited.headers['x-request-id']),
      );
      expect(limitedRow).toMatchObject({ keyId: slow.id, method: 'GET', path: '/v1/profile', status: 429 });
      // Refused before the routes, the key known: a body that cannot be read, one too large, no such route.
      const unreadable = await postMalformedJson(t, '/v1/profiles', logTenant.auth);
      expectMalformedJson(unreadable);
      const tooLarge = await t
        .http()
        .post('/v1/profiles')
        .set(logTenant.auth)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }))
        .expect(413);
      const unknown = await t.http().get('/v1/no-such-route?page=2').set(logTenant.auth).expect(404);
      for (const [res, path, status] of [
        [unreadable, '/v1/profiles', 400],
        [tooLarge, '/v1/profiles', 413],
        [unknown, '/v1/no-such-route', 404],
      ] as const) {
        const refusedRow = await eventually(async () =>
          (await logsOf(`?status=${status}&limit=100`)).logs.find((l) => l.requestId === res.headers['x-request-id']),
        );
        expect(refusedRow).toMatchObject({ keyId: logTenant.keyId, path, status });
      }
      // No key, no row: unauthenticated requests cannot be attributed to a profile.
      const anon = await t.http().get('/v1/profile').expect(401);
      // Its response is sent, so a row would be buffered by now: written once the buffer is flushed.
      await t.app.get(RequestLogService).flush();
      expect((await logsOf('?limit=100')).logs.some((l) => l.requestId === anon.headers['x-request-id'])).toBe(false);
    });

    it('should filter by status and method (any case), and paginate', async () => {
      for (let i = 0; i < 3; i++)
        await t.http().delete(`/v1/api-keys/3fa85f64-5717-4562-b3fc-2c963f66afa${i}`).set(logTenant.auth).expect(404);
      await eventually(async () => (await logsOf('?method=delete')).total === 3);
      const deletes = await logsOf('?method=delete&status=404&limit=2');
      expect(deletes).toMatchObject({ total: 3, limit: 2, page: 1, hasMore: true });
      expect(deletes.logs.every((l) => l.method === 'DELETE' && l.status === 404)).toBe(true);
      expect((await logsOf('?method=delete&status=404&limit=2&page=2')).logs).toHaveLength(1);
      expect((await logsOf('?status=418')).total).toBe(0);
      expect(
        expectError(await t.http().get('/v1/logs?method=BREW').set(logTenant.auth), 400, 'invalid_request').details,
      ).toEqual({ field: 'method' });
      expect(
        expectError(await t.http().get('/v1/logs?status=abc').set(logTenant.auth), 400, 'invalid_request').details,
      ).toEqual({ field: 'status' });
      expect((await t.http().get('/v1/logs?limit=1000').set(logTenant.auth).expect(200)).body.limit).toBe(100);
    });

    it('should write logs off the request path: requests answer while the log table is locked', async () => {
      const db = await pgClient(t);
      try {
        await db.query('BEGIN');
        await db.query('LOCK TABLE request_logs IN ACCESS EXCLUSIVE MODE');
        // Were the log write on the request path, these would wait for our COMMIT, which only
        // comes after they answer: the test would time out instead.
        const responses = await Promise.all(
          Array.from({ length: 5 }, () => t.http().get('/v1/profile').set(logTenant.auth)),
        );
        expect(responses.every((r) => r.status === 200)).toBe(true);
        await waitUntilBlocked(t, db, /\bINSERT INTO request_logs\b/); // a flush is now waiting on the lock
        await db.query('COMMIT');
        const ids = responses.map((r) => r.headers['x-request-id']);
        await eventually(
          async () => (await logsOf('?limit=100')).logs.filter((l) => ids.includes(l.requestId)).length === 5,
        );
      } finally {
        await db.end();
      }
    });

    it("should keep each workspace's logs to itself", async () => {
      const other = await createTenant(t);
      const res = await t.http().get('/v1/profile').set(other.auth).expect(200);
      await eventually(async () =>
        (await t.http().get('/v1/logs').set(other.auth).expect(200)).body.logs.some(
          (l: LogRow) => l.requestId === res.headers['x-request-id'],
        ),
      );
      expect((await logsOf('?limit=100')).logs.some((l) => l.requestId === res.headers['x-request-id'])).toBe(false);
      expect((await logsOf('?limit=100')).logs.every((l) => l.keyId !== other.keyId)).toBe(true);
    });
  });
});
