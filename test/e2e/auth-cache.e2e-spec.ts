import type { Response } from 'supertest';
import { AUTH_CACHE_MS, AuthCache } from '@/common/auth/auth-cache';
import { createKey, expectError } from '@test/support/e2e-helpers';
import { fakeDateOnly } from '@test/support/fake-date';
import { createTenant, createTestApp, eventually, Tenant, TestApp } from '@test/support/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Stops `Date` at `now` in this process (both instances run here); timers stay real. With the
 * clock standing still no cache entry runs out, so what a test then sees is not a cache expiry,
 * however slow a loaded machine makes the requests. `jest.setSystemTime` moves it.
 */
const stopClock = (now = Date.now()): void => fakeDateOnly(now);

/**
 * Keys are cached in each process (AuthCache); revocation is pushed over Redis. A revoked or
 * expired key passes on no instance once the change is announced, and on none for longer than
 * the cache time when it is not.
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
  afterEach(() => jest.useRealTimers());
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  /**
   * Sends `request` until it is refused (for at most 30 s of real time); returns the refusal and
   * when the last request that still passed was sent.
   */
  async function untilRefused(request: () => Promise<Response>) {
    const giveUpAt = performance.now() + 30_000;
    let lastPassedSentAt: number | null = null;
    for (;;) {
      const sentAt = Date.now();
      const res = await request();
      if (res.status !== 200) return { res, lastPassedSentAt };
      lastPassedSentAt = sentAt;
      if (performance.now() > giveUpAt) throw new Error('it kept passing');
      await sleep(20);
    }
  }

  it('should refuse a key revoked on one instance on the other at once, not when its cache entry runs out', async () => {
    const key = await createKey(a, tenant, { name: 'revoked soon', rateLimitPerMinute: 10000 });
    // From here no cache entry runs out: only the announcement over Redis can make b refuse.
    stopClock();
    // Both instances have resolved (and cached) the key.
    for (let i = 0; i < 3; i++) {
      await a.http().get('/v1/profile').set(key.auth).expect(200);
      await b.http().get('/v1/profile').set(key.auth).expect(200);
    }
    await a.http().delete(`/v1/api-keys/${key.id}`).set(tenant.auth).expect(200);
    // The revoking instance: at once.
    expectError(await a.http().get('/v1/profile').set(key.auth), 401, 'invalid_api_key');
    const other = await untilRefused(() => b.http().get('/v1/profile').set(key.auth));
    expectError(other.res, 401, 'invalid_api_key');
  });

  it('should refuse a cached key once its expiresAt has passed, on every instance', async () => {
    const now = Date.now();
    stopClock(now);
    const key = await createKey(a, tenant, {
      name: 'short-lived',
      rateLimitPerMinute: 10000,
      expiresAt: new Date(now + 2500).toISOString(),
    });
    await a.http().get('/v1/profile').set(key.auth).expect(200);
    await b.http().get('/v1/profile').set(key.auth).expect(200);
    // Past expiresAt, while both instances' cache entries (stored at `now`) are still fresh.
    jest.setSystemTime(now + 2600);
    expect(2600).toBeLessThan(AUTH_CACHE_MS);
    for (const app of [a, b]) {
      const res = await app.http().get('/v1/profile').set(key.auth);
      expectError(res, 401, 'api_key_expired');
    }
  });

  it('should stop reaching a profile deleted on the other instance at once, not when its cache entry runs out', async () => {
    const created = await a.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Short-lived' }).expect(201);
    const profileId = (created.body as { profile: { id: string } }).profile.id;
    const withProfile = () => b.http().get(`/v1/profile?profileId=${profileId}`).set(tenant.auth);
    // From here no cache entry runs out: only the announcement over Redis can make b refuse.
    stopClock();
    await withProfile().expect(200);
    await withProfile().expect(200);
    await a.http().delete(`/v1/profiles/${profileId}`).set(tenant.auth).expect(200);
    const { res } = await untilRefused(withProfile);
    expectError(res, 403, 'profile_not_accessible');
  });

  it('should see a key revoked behind the service’s back (plain SQL, no announcement) within the cache time', async () => {
    const key = await createKey(a, tenant, { name: 'revoked by SQL', rateLimitPerMinute: 10000 });
    await b.http().get('/v1/profile').set(key.auth).expect(200);
    // b's entry for the key was stored before this answer: it has run out by cachedUntil.
    const cachedUntil = Date.now() + AUTH_CACHE_MS;
    await a.ds.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    const { res, lastPassedSentAt } = await untilRefused(() => b.http().get('/v1/profile').set(key.auth));
    expectError(res, 401, 'invalid_api_key');
    // No request sent after the entry ran out was let through.
    expect(lastPassedSentAt ?? 0).toBeLessThanOrEqual(cachedUntil);
  });
});
