import { createHash } from 'node:crypto';
import { authChanged, createKey, expectError } from '@test/support/e2e-helpers';
import { concretePath, discoverRoutes, expressRoutes } from '@test/support/routes';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

/** Routes mounted on Express beside Nest's controllers, public by nature (Swagger UI and the document). */
const NON_CONTROLLER_ROUTES = /^\/(docs(\/.*)?|openapi\.(json|yaml))$/;

describe('authentication and permissions', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    other = await createTenant(t);
  });
  afterAll(async () => t.close());

  describe('401', () => {
    it('should answer authentication_required without an Authorization header or with another scheme', async () => {
      expectError(await t.http().get('/v1/profile'), 401, 'authentication_required');
      expectError(
        await t
          .http()
          .get('/v1/profile')
          .set('Authorization', `Basic ${Buffer.from('a:b').toString('base64')}`),
        401,
        'authentication_required',
      );
      expectError(
        await t.http().get('/v1/profile').set('Authorization', `Token ${tenant.apiKey}`),
        401,
        'authentication_required',
      );
      expectError(await t.http().get('/v1/profile').set('Authorization', 'Bearer'), 401, 'authentication_required');
      expectError(
        await t.http().get('/v1/profile').set('Authorization', tenant.apiKey),
        401,
        'authentication_required',
      );
    });

    it('should answer invalid_api_key for malformed, unknown and revoked keys', async () => {
      expectError(await t.http().get('/v1/profile').set('Authorization', 'Bearer not-a-key'), 401, 'invalid_api_key');
      expectError(
        await t
          .http()
          .get('/v1/profile')
          .set('Authorization', 'Bearer svc_test_0123456789012345678901234567890123456789'),
        401,
        'invalid_api_key',
      );
      expectError(
        await t
          .http()
          .get('/v1/profile')
          .set('Authorization', `Bearer svc_live_${'A'.repeat(40)}`),
        401,
        'invalid_api_key',
      );
      // A real key with one character changed.
      const tampered = tenant.apiKey.slice(0, -1) + (tenant.apiKey.endsWith('a') ? 'b' : 'a');
      expectError(await t.http().get('/v1/profile').set('Authorization', `Bearer ${tampered}`), 401, 'invalid_api_key');

      const key = await createKey(t, tenant, { name: 'to revoke' });
      await t.http().get('/v1/profile').set(key.auth).expect(200);
      await t.http().delete(`/v1/api-keys/${key.id}`).set(tenant.auth).expect(200);
      expectError(await t.http().get('/v1/profile').set(key.auth), 401, 'invalid_api_key');
    });

    it('should answer api_key_expired once expiresAt has passed', async () => {
      const key = await createKey(t, tenant, {
        name: 'short-lived',
        expiresAt: new Date(Date.now() + 3600_000).toISOString(),
      });
      await t.http().get('/v1/profile').set(key.auth).expect(200);
      await t.ds.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, [key.id]);
      await authChanged(t, `key:${key.id}`);
      expectError(await t.http().get('/v1/profile').set(key.auth), 401, 'api_key_expired');
    });

    it('should accept the scheme name case-insensitively', async () => {
      await t.http().get('/v1/profile').set('Authorization', `bearer ${tenant.apiKey}`).expect(200);
    });
  });

  describe('keys at rest', () => {
    it('should store only a SHA-256 hash and a short prefix, and never show the secret again', async () => {
      const key = await createKey(t, tenant, { name: 'hashed' });
      expect(key.secret).toMatch(/^svc_live_[0-9A-Za-z]{32,}$/);
      const [row] = await t.ds.query<Record<string, unknown>[]>('SELECT * FROM api_keys WHERE id = $1', [key.id]);
      expect(row.key_hash).toBe(createHash('sha256').update(key.secret).digest('hex'));
      expect(JSON.stringify(row)).not.toContain(key.secret);
      expect(key.secret.startsWith(String(row.prefix))).toBe(true);
      expect(String(row.prefix).length).toBeLessThan(20);

      const list = await t.http().get('/v1/api-keys?limit=100').set(tenant.auth).expect(200);
      const text = JSON.stringify(list.body);
      expect(text).not.toContain(key.secret);
      expect(text).not.toContain(String(row.key_hash));
      const listed = list.body.apiKeys.find((k: { id: string }) => k.id === key.id);
      expect(listed).toMatchObject({ id: key.id, prefix: row.prefix });
      expect(listed).not.toHaveProperty('secret');
      expect(listed).not.toHaveProperty('keyHash');
    });
  });

  describe('403 insufficient_permission', () => {
    it('should name the required permission in details.required', async () => {
      const reader = await createKey(t, tenant, { permissions: ['profiles:read'] });
      await t.http().get('/v1/profiles').set(reader.auth).expect(200);
      expect(
        expectError(
          await t.http().post('/v1/profiles').set(reader.auth).send({ name: 'x' }),
          403,
          'insufficient_permission',
        ).details,
      ).toEqual({ required: 'profiles:write' });
      expect(
        expectError(await t.http().get('/v1/api-keys').set(reader.auth), 403, 'insufficient_permission').details,
      ).toEqual({ required: 'keys:read' });
      expect(
        expectError(await t.http().get('/v1/events').set(reader.auth), 403, 'insufficient_permission').details,
      ).toEqual({ required: 'audit:read' });
      expect(
        expectError(await t.http().put('/v1/policy').set(reader.auth).send({}), 403, 'insufficient_permission').details,
      ).toEqual({ required: 'policy:write' });
    });

    it('should let * grant every permission', async () => {
      for (const path of ['/v1/profiles', '/v1/api-keys', '/v1/policy', '/v1/events', '/v1/logs', '/v1/profile']) {
        await t.http().get(path).set(tenant.auth).expect(200);
      }
    });
  });

  describe('profile resolution', () => {
    let second: string;

    beforeAll(async () => {
      const res = await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Second' }).expect(201);
      second = res.body.profile.id;
    });

    it("should use the key's home profile when profileId is absent, and profileId when given", async () => {
      expect((await t.http().get('/v1/profile').set(tenant.auth).expect(200)).body.profile.id).toBe(tenant.profileId);
      expect((await t.http().get(`/v1/profile?profileId=${second}`).set(tenant.auth).expect(200)).body.profile.id).toBe(
        second,
      );
    });

    it('should take profileId from the body of a write, and from the query of a write', async () => {
      const body = await t
        .http()
        .put('/v1/policy')
        .set(tenant.auth)
        .send({ profileId: second, blockedTerms: ['from-body'] })
        .expect(200);
      expect(body.body.policy).toMatchObject({ profileId: second, blockedTerms: ['from-body'] });
      const query = await t
        .http()
        .put(`/v1/policy?profileId=${second}`)
        .set(tenant.auth)
        .send({ blockedTerms: ['from-query'] })
        .expect(200);
      expect(query.body.policy).toMatchObject({ profileId: second, blockedTerms: ['from-query'] });
      expect((await t.http().get('/v1/policy').set(tenant.auth).expect(200)).body.policy).toMatchObject({
        profileId: tenant.profileId,
        blockedTerms: [],
      });
    });

    it("should answer 403 profile_not_accessible for another workspace's profile, an unknown one or garbage", async () => {
      expectError(
        await t.http().get(`/v1/profile?profileId=${other.profileId}`).set(tenant.auth),
        403,
        'profile_not_accessible',
      );
      expectError(
        await t.http().get('/v1/policy?profileId=3fa85f64-5717-4562-b3fc-2c963f66afa6').set(tenant.auth),
        403,
        'profile_not_accessible',
      );
      expectError(await t.http().get('/v1/events?profileId=garbage').set(tenant.auth), 403, 'profile_not_accessible');
      expectError(
        await t
          .http()
          .put('/v1/policy')
          .set(tenant.auth)
          .send({ profileId: other.profileId, blockedTerms: ['x'] }),
        403,
        'profile_not_accessible',
      );
    });

    it('should answer 403 profile_not_accessible outside the profiles a key is restricted to', async () => {
      const scoped = await createKey(t, tenant, {
        profileIds: [tenant.profileId],
        permissions: ['profiles:read', 'policy:read'],
      });
      await t.http().get('/v1/policy').set(scoped.auth).expect(200);
      expectError(await t.http().get(`/v1/policy?profileId=${second}`).set(scoped.auth), 403, 'profile_not_accessible');
      expectError(await t.http().get(`/v1/profiles/${second}`).set(scoped.auth), 403, 'profile_not_accessible');
    });

    it('should answer 400 invalid_profile_id when profileId is not a string', async () => {
      expectError(
        await t.http().get(`/v1/profile?profileId=${second}&profileId=${tenant.profileId}`).set(tenant.auth),
        400,
        'invalid_profile_id',
      );
      expectError(await t.http().put('/v1/policy').set(tenant.auth).send({ profileId: 42 }), 400, 'invalid_profile_id');
      expectError(
        await t
          .http()
          .put('/v1/policy')
          .set(tenant.auth)
          .send({ profileId: [second] }),
        400,
        'invalid_profile_id',
      );
    });

    it("should answer 404 not_found for another workspace's objects exactly like for missing ones", async () => {
      const missing = await t.http().get('/v1/profiles/3fa85f64-5717-4562-b3fc-2c963f66afa6').set(tenant.auth);
      const foreign = await t.http().get(`/v1/profiles/${other.profileId}`).set(tenant.auth);
      expectError(missing, 404, 'not_found');
      expectError(foreign, 404, 'not_found');
      expect(foreign.body.error.message.replace(other.profileId, 'ID')).toBe(
        missing.body.error.message.replace('3fa85f64-5717-4562-b3fc-2c963f66afa6', 'ID'),
      );
      expectError(
        await t.http().patch(`/v1/profiles/${other.profileId}`).set(tenant.auth).send({ name: 'stolen' }),
        404,
        'not_found',
      );
      expectError(await t.http().delete(`/v1/profiles/${other.profileId}`).set(tenant.auth), 404, 'not_found');
      expectError(await t.http().delete(`/v1/api-keys/${other.keyId}`).set(tenant.auth), 404, 'not_found');
      expectError(await t.http().get('/v1/profiles/not-a-uuid').set(tenant.auth), 404, 'not_found');
      // Nothing changed on the other side.
      expect((await t.http().get('/v1/profile').set(other.auth).expect(200)).body.profile.name).toBe('Default');
    });
  });

  describe('route walk', () => {
    it('should guard every route: each carries @RequirePermission or @Public', () => {
      const routes = discoverRoutes(t);
      expect(routes.length).toBeGreaterThan(10);
      const unmarked = routes
        .filter((r) => !r.permission && !r.isPublic)
        .map((r) => `${r.method} ${r.path} (${r.controller}.${r.handler})`);
      expect(unmarked).toEqual([]);
      const publicV1 = routes.filter((r) => r.isPublic && r.path.startsWith('/v1')).map((r) => `${r.method} ${r.path}`);
      expect(publicV1).toEqual([]);
    });

    it('should know every route Express serves (nothing mounted around the guard but Swagger)', () => {
      const known = new Set(discoverRoutes(t).map((r) => `${r.method} ${r.path}`));
      const stray = expressRoutes(t)
        .filter(
          (r) => !known.has(`${r.method} ${r.path}`) && !(r.method === 'GET' && NON_CONTROLLER_ROUTES.test(r.path)),
        )
        // Nest adds HEAD beside GET and ALL for @All(); they are the same handlers.
        .filter((r) => !(r.method === 'HEAD' && known.has(`GET ${r.path}`)) && !known.has(`ALL ${r.path}`))
        .map((r) => `${r.method} ${r.path}`);
      expect(stray).toEqual([]);
    });

    it('should answer every /v1 route without a key with 401 authentication_required, and with a bad key 401 invalid_api_key', async () => {
      const routes = discoverRoutes(t).filter((r) => r.path.startsWith('/v1'));
      const failures: string[] = [];
      for (const r of routes) {
        const method = (r.method === 'ALL' ? 'get' : r.method.toLowerCase()) as 'get';
        const path = concretePath(r.path);
        const anon = await t
          .http()
          [method](path)
          .send(method === 'get' ? undefined : {});
        if (
          anon.status !== 401 ||
          anon.body?.error?.code !== 'authentication_required' ||
          anon.body.error.requestId !== anon.headers['x-request-id']
        ) {
          failures.push(
            `${r.method} ${r.path} without key → ${anon.status} ${JSON.stringify(anon.body).slice(0, 120)}`,
          );
        }
        const bad = await t
          .http()
          [method](path)
          .set('Authorization', 'Bearer svc_live_nope')
          .send(method === 'get' ? undefined : {});
        if (bad.status !== 401 || bad.body?.error?.code !== 'invalid_api_key')
          failures.push(`${r.method} ${r.path} bad key → ${bad.status}`);
      }
      expect(failures).toEqual([]);
    });

    it('should answer /mcp without a key, or with a bad one, with the same 401 envelope', async () => {
      if (!discoverRoutes(t).some((r) => r.path === '/mcp')) return; // the MCP module is not registered
      const body = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} };
      const anon = await t.http().post('/mcp').set('Accept', 'application/json, text/event-stream').send(body);
      expectError(anon, 401, 'authentication_required');
      const bad = await t
        .http()
        .post('/mcp')
        .set('Accept', 'application/json, text/event-stream')
        .set('Authorization', 'Bearer svc_live_nope')
        .send(body);
      expectError(bad, 401, 'invalid_api_key');
    });

    it('should give every authenticated route exactly one permission from the known list', async () => {
      const { PERMISSIONS } = await import('@/common/auth/permissions');
      const unknown = discoverRoutes(t)
        .filter((r) => r.permission && !(PERMISSIONS as readonly string[]).includes(r.permission))
        .map((r) => `${r.method} ${r.path}: ${r.permission}`);
      expect(unknown).toEqual([]);
    });
  });
});
