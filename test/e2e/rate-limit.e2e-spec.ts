import { RateLimitService } from '@/common/rate-limit/rate-limit.service';
import { authChanged, createKey, expectError, rateHeaders, setKeyLimits } from '@test/support/e2e-helpers';
import { createTenant, createTestApp, TestApp } from '@test/support/test-app';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('rate limiting', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    a = await createTestApp();
    // A second API process on the same database and the same Redis prefix.
    b = await createTestApp({ shareWith: a, env: { PROCESS_ROLE: 'api' } });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('should allow 16 requests per rolling minute by default, then answer 429 with Retry-After', async () => {
    const tenant = await createTenant(a, { rateLimitPerMinute: null, rateLimitPerHour: null });
    for (let i = 0; i < 16; i++) {
      const res = await a.http().get('/v1/profile').set(tenant.auth).expect(200);
      const h = rateHeaders(res);
      expect(h).toMatchObject({ limit: 16, remaining: 15 - i, policy: '16;w=60', window: 60 });
      expect(h.reset).toBeGreaterThanOrEqual(1);
      expect(h.reset).toBeLessThanOrEqual(60);
      expect(res.headers['retry-after']).toBeUndefined();
    }
    const limited = await a.http().get('/v1/profile').set(tenant.auth);
    expectError(limited, 429, 'rate_limit_exceeded');
    expect(rateHeaders(limited)).toMatchObject({ limit: 16, remaining: 0, policy: '16;w=60' });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // Refused requests keep being refused while the window is full.
    expectError(await b.http().get('/v1/profile').set(tenant.auth), 429, 'rate_limit_exceeded');
  });

  it('should count per key: a second key of the workspace has its own window', async () => {
    const tenant = await createTenant(a);
    const k1 = await createKey(a, tenant, { rateLimitPerMinute: 2 });
    const k2 = await createKey(a, tenant, { rateLimitPerMinute: 2 });
    await a.http().get('/v1/profile').set(k1.auth).expect(200);
    await a.http().get('/v1/profile').set(k1.auth).expect(200);
    await a.http().get('/v1/profile').set(k1.auth).expect(429);
    const res = await a.http().get('/v1/profile').set(k2.auth).expect(200);
    expect(rateHeaders(res)).toMatchObject({ limit: 2, remaining: 1 });
  });

  it('should share one window between two API instances (alternating requests)', async () => {
    const tenant = await createTenant(a);
    const key = await createKey(a, tenant, { rateLimitPerMinute: 5 });
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const app = i % 2 === 0 ? a : b;
      const res = await app.http().get('/v1/profile').set(key.auth).expect(200);
      remaining.push(rateHeaders(res).remaining);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    expectError(await b.http().get('/v1/profile').set(key.auth), 429, 'rate_limit_exceeded');
    expectError(await a.http().get('/v1/profile').set(key.auth), 429, 'rate_limit_exceeded');
  });

  it('should admit exactly the limit when a burst hits both instances at once', async () => {
    const tenant = await createTenant(a);
    const key = await createKey(a, tenant, { rateLimitPerMinute: 5 });
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) => (i % 2 ? a : b).http().get('/v1/profile').set(key.auth)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    for (const r of results) rateHeaders(r);
  });

  it('should enforce the hourly window and report it when it is the most constrained', async () => {
    const tenant = await createTenant(a);
    const key = await createKey(a, tenant, { rateLimitPerMinute: 50 });
    await setKeyLimits(a, key.id, 50, 3);
    const first = await a.http().get('/v1/profile').set(key.auth).expect(200);
    expect(rateHeaders(first)).toMatchObject({ limit: 3, remaining: 2, policy: '3;w=3600', window: 3600 });
    await b.http().get('/v1/profile').set(key.auth).expect(200);
    await a.http().get('/v1/profile').set(key.auth).expect(200);
    const limited = await b.http().get('/v1/profile').set(key.auth);
    expectError(limited, 429, 'rate_limit_exceeded');
    expect(rateHeaders(limited)).toMatchObject({ limit: 3, remaining: 0, policy: '3;w=3600' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3500);
  });

  it('should apply the 1000 per hour default', async () => {
    const tenant = await createTenant(a, { rateLimitPerMinute: null, rateLimitPerHour: null });
    await a.ds.query('UPDATE api_keys SET rate_limit_per_minute = 5000 WHERE id = $1', [tenant.keyId]);
    await authChanged(a, `key:${tenant.keyId}`);
    const res = await a.http().get('/v1/profile').set(tenant.auth).expect(200);
    // 4999 left of the minute, 999 of the hour: the hour is the binding window.
    expect(rateHeaders(res)).toMatchObject({ limit: 1000, remaining: 999, policy: '1000;w=3600' });
  });

  it('should put the RateLimit headers on every authenticated response, errors after authentication included', async () => {
    const tenant = await createTenant(a, { rateLimitPerMinute: 1000 });
    const reader = await createKey(a, tenant, { permissions: ['profiles:read'] });
    const checks = [
      await a.http().get('/v1/profile').set(tenant.auth).expect(200),
      await a
        .http()
        .post('/v1/profiles')
        .set(tenant.auth)
        .set('Idempotency-Key', 'rl-1')
        .send({ name: 'p' })
        .expect(201),
      await a
        .http()
        .post('/v1/profiles')
        .set(tenant.auth)
        .set('Idempotency-Key', 'rl-1')
        .send({ name: 'p' })
        .expect(201), // replay
      await a.http().post('/v1/profiles').set(tenant.auth).send({}).expect(400), // validation
      await a.http().get('/v1/profile?profileId=a&profileId=b').set(tenant.auth).expect(400), // invalid_profile_id
      await a.http().post('/v1/profiles').set(reader.auth).send({ name: 'x' }).expect(403), // insufficient_permission
      await a.http().get('/v1/profile?profileId=3fa85f64-5717-4562-b3fc-2c963f66afa6').set(tenant.auth).expect(403), // profile_not_accessible
      await a.http().get('/v1/profiles/3fa85f64-5717-4562-b3fc-2c963f66afa6').set(tenant.auth).expect(404), // not_found from the service
      await a
        .http()
        .post('/v1/profiles')
        .set(tenant.auth)
        .set('Idempotency-Key', 'rl-1')
        .send({ name: 'other' })
        .expect(409), // reused
    ];
    for (const res of checks) rateHeaders(res);
    // Before authentication there is no key to count against.
    const anon = await a.http().get('/v1/profile').expect(401);
    expect(anon.headers['ratelimit-limit']).toBeUndefined();
  });

  it('should not count refused (429) requests against the window', async () => {
    const tenant = await createTenant(a);
    const key = await createKey(a, tenant, { rateLimitPerMinute: 2 });
    await setKeyLimits(a, key.id, 2, 1000);
    await a.http().get('/v1/profile').set(key.auth).expect(200);
    await a.http().get('/v1/profile').set(key.auth).expect(200);
    for (let i = 0; i < 5; i++) await a.http().get('/v1/profile').set(key.auth).expect(429);
    // The hourly window saw only the two admitted requests.
    await setKeyLimits(a, key.id, 1000, 1000);
    const res = await a.http().get('/v1/profile').set(key.auth).expect(200);
    expect(rateHeaders(res)).toMatchObject({ limit: 1000, remaining: 997, window: 3600 });
  });

  it('should roll the window (a sliding log, not fixed buckets)', async () => {
    const limiter = a.app.get(RateLimitService);
    const win = [{ limit: 2, windowSeconds: 2 }];
    /** One call with the wall-clock span it ran in (Redis' clock, which the window uses, is this machine's). */
    const timed = async (subject: string) => {
      const from = Date.now();
      const decision = await limiter.consume(subject, win);
      return { decision, from, to: Date.now() };
    };
    // Each step below is meaningful only if the calls land where the comments say; a loaded machine
    // can stall a call past its spot, and then the round is played again with a fresh subject.
    for (let round = 1; ; round++) {
      const subject = `test:${Date.now()}:${round}`;
      const first = await timed(subject); // t≈0
      expect(first.decision.allowed).toBe(true);
      await sleep(1050); // a timer can end a little early by the wall clock; see `full` below
      const second = await timed(subject); // t≈1
      const full = await timed(subject);
      await sleep(Math.max(0, first.to + 2000 - Date.now()) + 100); // t≈2.1: the first request left the window
      const third = await timed(subject);
      // A fixed two-second bucket starting at t=2 would admit this one; the rolling window does not.
      const fourth = await timed(subject);
      // All within the window of the second (until t≈3), and second and full within the first's;
      // full a whole second after the first (a timer can fire a little early by the wall clock, and
      // Retry-After is then 2), and third after the first left the window.
      const inPlace =
        fourth.to < second.from + 2000 &&
        full.to < first.from + 2000 &&
        full.from >= first.to + 1000 &&
        third.from >= first.to + 2000;
      if (inPlace) {
        expect(second.decision.allowed).toBe(true);
        expect(full.decision).toMatchObject({ allowed: false, remaining: 0 });
        expect(full.decision.retryAfterSeconds).toBe(1);
        expect(third.decision.allowed).toBe(true);
        expect(fourth.decision.allowed).toBe(false);
        return;
      }
      if (round === 5) throw new Error('five rounds in a row were stalled past their spots');
    }
  });
});
