import { AUTH_CACHE_MS, AuthCache } from '@/common/auth/auth-cache';
import { createKey, expectError } from '../support/e2e-helpers';
import { createTenant, createTestApp, eventually, Tenant, TestApp } from '../support/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Keys are cached in each process (AuthCache); revocation is pushed over Redis. A revoked or
 * expired key must never pass for more than one second, on any instance.
 */
describe('auth cache: revocation and expiry across instances', () => {
  let a: TestApp;
  let b: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    a = await createTestApp();
    // A second API process on the same database and Redis.
    b = await createTestApp({ shareWith: a, env: { PROCESS_ROLE: 'api' } });
    await eventually(async () => a.app.get(AuthCache).active && b.app.get(AuthCache).active);
    tenant = await createTenant(a);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  /** Polls `app` with the key until it is refused; returns the refusal and how long it took. */
  async function refusedWithin(app: TestApp, auth: Record<string, string>, since: number) {
    for (;;) {
      const res = await app.http().get('/v1/profile').set(auth);
      if (res.status !== 200) return { res, ms: Date.now() - since };
      if (Date.now() - since > AUTH_CACHE_MS + 2000) throw new Error('the key kept passing');
      await sleep(20);
    }
  }

  it('should refuse a key revoked on one instance on the other within a second', async () => {
    const key = await createKey(a, tenant, { name: 'revoked soon', rateLimitPerMinute: 10000 });
    // Both instances have resolved (and cached) the key.
    for (let i = 0; i < 3; i++) {
      await a.http().get('/v1/profile').set(key.auth).expect(200);
      await b.http().get('/v1/profile').set(key.auth).expect(200);
    }
    await a.http().delete(`/v1/api-keys/${key.id}`).set(tenant.auth).expect(200);
    const revokedAt = Date.now();
    // The revoking instance: at once.
    expectError(await a.http().get('/v1/profile').set(key.auth), 401, 'invalid_api_key');
    const other = await refusedWithin(b, key.auth, revokedAt);
    expectError(other.res, 401, 'invalid_api_key');
    expect(other.ms).toBeLessThan(1000);
  });

  it('should refuse a cached key once its expiresAt has passed, on every instance', async () => {
    const expiresAt = Date.now() + 2500;
    const key = await createKey(a, tenant, {
      name: 'short-lived',
      rateLimitPerMinute: 10000,
      expiresAt: new Date(expiresAt).toISOString(),
    });
    await a.http().get('/v1/profile').set(key.auth).expect(200);
    await b.http().get('/v1/profile').set(key.auth).expect(200);
    await sleep(Math.max(0, expiresAt - Date.now() + 10));
    for (const app of [a, b]) {
      const res = await app.http().get('/v1/profile').set(key.auth);
      expectError(res, 401, 'api_key_expired');
    }
  });

  it('should stop reaching a profile deleted on the other instance within a second', async () => {
    const created = await a.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Short-lived' }).expect(201);
    const profileId = (created.body as { profile: { id: string } }).profile.id;
    const withProfile = () => b.http().get(`/v1/profile?profileId=${profileId}`).set(tenant.auth);
    await withProfile().expect(200);
    await withProfile().expect(200);
    await a.http().delete(`/v1/profiles/${profileId}`).set(tenant.auth).expect(200);
    const deletedAt = Date.now();
    let res = await withProfile();
    while (res.status === 200 && Date.now() - deletedAt < AUTH_CACHE_MS + 2000) {
      await sleep(20);
      res = await withProfile();
    }
    expect(Date.now() - deletedAt).toBeLessThan(1000);
    expectError(res, 403, 'profile_not_accessible');
  });

  it('should see a key revoked behind the service’s back (plain SQL, no announcement) within the cache time', async () => {
    const key = await createKey(a, tenant, { name: 'revoked by SQL', rateLimitPerMinute: 10000 });
    await b.http().get('/v1/profile').set(key.auth).expect(200);
    await a.ds.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    const since = Date.now();
    const { res, ms } = await refusedWithin(b, key.auth, since);
    expectError(res, 401, 'invalid_api_key');
    expect(ms).toBeLessThanOrEqual(AUTH_CACHE_MS + 200);
  });
});
