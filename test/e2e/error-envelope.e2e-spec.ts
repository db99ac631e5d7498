import { ERROR_CATALOGUE, ERROR_CODES } from '@/common/errors/error-catalogue';
import { expectError, expectMalformedJson, postMalformedJson, rateHeaders } from '@test/support/e2e-helpers';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

describe('error envelope', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp({ env: { BODY_LIMIT: '16kb' } });
    tenant = await createTenant(t);
  });
  afterAll(async () => t.close());

  describe('X-Request-Id', () => {
    it('should put X-Request-Id on every response: success, public, docs, errors', async () => {
      const responses = await Promise.all([
        t.http().get('/v1/profile').set(tenant.auth),
        t.http().get('/health'),
        t.http().get('/health/ready'),
        t.http().get('/openapi.json'),
        t.http().get('/docs'),
        t.http().get('/errors'),
        t.http().get('/v1/profile'),
        t.http().get('/no/such/route'),
      ]);
      for (const res of responses) expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{8,128}$/);
      expect(new Set(responses.map((r) => r.headers['x-request-id'])).size).toBe(responses.length);
    });

    it("should echo a caller's well-formed X-Request-Id and replace a malformed one", async () => {
      const mine = await t.http().get('/v1/profile').set('X-Request-Id', 'trace-0123456789abcdef');
      expect(mine.headers['x-request-id']).toBe('trace-0123456789abcdef');
      expectError(mine, 401, 'authentication_required');
      const bad = await t.http().get('/v1/profile').set('X-Request-Id', 'bad id with spaces <script>');
      expect(bad.headers['x-request-id']).toMatch(/^req_/);
      expectError(bad, 401, 'authentication_required');
    });
  });

  describe('envelope', () => {
    it('should answer an unknown route with a 404 not_found envelope (under /v1: once the key is known)', async () => {
      // Every /v1 route needs a key, and the key is checked first.
      expectError(await t.http().get('/v1/no-such-thing'), 401, 'authentication_required');
      const keyed = await t.http().get('/v1/no-such-thing').set(tenant.auth);
      expect(expectError(keyed, 404, 'not_found').message).toContain('/v1/no-such-thing');
      expectError(await t.http().post('/v1/no-such-thing').set(tenant.auth).send({}), 404, 'not_found');
      expectError(await t.http().get('/totally/unknown'), 404, 'not_found');
      // A known path with an unrouted method is unknown too.
      expectError(await t.http().patch('/v1/policy').set(tenant.auth).send({}), 404, 'not_found');
    });

    it('should answer malformed JSON with 400 invalid_request naming the body', async () => {
      expectMalformedJson(await postMalformedJson(t, '/v1/profiles', tenant.auth));
    });

    it('should answer a body over BODY_LIMIT with 413 payload_too_large', async () => {
      const res = await t
        .http()
        .post('/v1/profiles')
        .set(tenant.auth)
        .send({ name: 'x', description: 'y'.repeat(20 * 1024) });
      expectError(res, 413, 'payload_too_large');
      // Without a key the answer is 401, before the body is judged.
      expectError(
        await t
          .http()
          .post('/v1/profiles')
          .set('Content-Type', 'application/json')
          .send(`{"a":"${'z'.repeat(20 * 1024)}"}`),
        401,
        'authentication_required',
      );
    });

    it('should answer a JSON array or scalar body with 400 invalid_request', async () => {
      const res = await t
        .http()
        .post('/v1/profiles')
        .set(tenant.auth)
        .send([{ name: 'a' }]);
      expect(expectError(res, 400, 'invalid_request').message).toBe('The request body must be a JSON object.');
    });

    it('should name the field in validation messages (required, wrong type, range, unknown, query)', async () => {
      const missing = expectError(
        await t.http().post('/v1/profiles').set(tenant.auth).send({}),
        400,
        'invalid_request',
      );
      expect(missing.message).toBe('name is required');
      expect(missing.details).toEqual({ field: 'name' });

      const wrongType = expectError(
        await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 42 }),
        400,
        'invalid_request',
      );
      expect(wrongType.message).toBe('name must be a string');

      const tooLong = expectError(
        await t
          .http()
          .post('/v1/profiles')
          .set(tenant.auth)
          .send({ name: 'n'.repeat(201) }),
        400,
        'invalid_request',
      );
      expect(tooLong.message).toMatch(/^name must be shorter than or equal to 200 characters/);

      const unknown = expectError(
        await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'ok', colour: 'red' }),
        400,
        'invalid_request',
      );
      expect(unknown.message).toContain('colour');
      expect(unknown.details).toEqual({ field: 'colour' });

      const query = expectError(await t.http().get('/v1/profiles?page=abc').set(tenant.auth), 400, 'invalid_request');
      expect(query.message).toBe('page must be an integer');
      expect(query.details).toEqual({ field: 'page' });

      const arrayItem = expectError(
        await t
          .http()
          .put('/v1/policy')
          .set(tenant.auth)
          .send({ approverUserIds: ['not-a-uuid'] }),
        400,
        'invalid_request',
      );
      expect(arrayItem.message).toMatch(/^approverUserIds/);
    });

    it('should render details where the spec says (insufficient_permission.required)', async () => {
      const key = await t
        .http()
        .post('/v1/api-keys')
        .set(tenant.auth)
        .send({ name: 'reader', permissions: ['profiles:read'] });
      const res = await t
        .http()
        .post('/v1/profiles')
        .set({ Authorization: `Bearer ${key.body.secret}` })
        .send({ name: 'x' });
      expect(expectError(res, 403, 'insufficient_permission').details).toEqual({ required: 'profiles:write' });
    });

    it('should link docsUrl to an anchor that the /errors page defines for every catalogue code', async () => {
      const page = await t.http().get('/errors').expect(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      for (const code of ERROR_CODES) expect(page.text).toContain(`id="${code}"`);
      const error = expectError(await t.http().get('/v1/profile'), 401, 'authentication_required');
      expect(error.docsUrl).toBe(`${t.config.docsBaseUrl}#authentication_required`);
    });

    it('should use the catalogue status for every code it renders', async () => {
      const res = await t.http().get('/v1/profile').set('Authorization', 'Bearer svc_live_short');
      expect(res.status).toBe(ERROR_CATALOGUE.invalid_api_key.status);
    });
  });

  describe('legacy format', () => {
    it('should answer { error: <message>, code } under Service-Error-Format: legacy', async () => {
      const res = await t.http().get('/v1/profile').set('Service-Error-Format', 'legacy').expect(401);
      expect(res.body).toEqual({
        error: ERROR_CATALOGUE.authentication_required.message,
        code: 'authentication_required',
      });
      expect(res.headers['x-request-id']).toBeTruthy();

      const notFound = await t.http().get('/nope').set('Service-Error-Format', 'Legacy').expect(404);
      expect(notFound.body).toEqual({ error: expect.any(String), code: 'not_found' });

      const validation = await t
        .http()
        .post('/v1/profiles')
        .set(tenant.auth)
        .set('Service-Error-Format', 'legacy')
        .send({})
        .expect(400);
      expect(validation.body).toEqual({ error: 'name is required', code: 'invalid_request' });

      const malformed = await postMalformedJson(t, '/v1/profiles', {
        ...tenant.auth,
        'Service-Error-Format': 'legacy',
      }).expect(400);
      expect(malformed.body).toEqual({ error: 'The request body is not valid JSON.', code: 'invalid_request' });
    });

    it('should keep the standard envelope for any other header value', async () => {
      expectError(
        await t.http().get('/v1/profile').set('Service-Error-Format', 'modern'),
        401,
        'authentication_required',
      );
    });
  });

  describe('unexpected failures', () => {
    it('should answer 500 internal_error without leaking internals, with RateLimit headers', async () => {
      await t.ds.query('ALTER TABLE policies RENAME TO policies_hidden_for_test');
      try {
        const res = await t.http().get('/v1/policy').set(tenant.auth);
        const error = expectError(res, 500, 'internal_error');
        expect(error.message).toBe(ERROR_CATALOGUE.internal_error.message);
        expect(JSON.stringify(res.body)).not.toMatch(/polic(y|ies)_|relation|QueryFailed|stack|\.ts:|SELECT/i);
        expect(error.details).toBeUndefined();
        rateHeaders(res);
      } finally {
        await t.ds.query('ALTER TABLE policies_hidden_for_test RENAME TO policies');
      }
      await t.http().get('/v1/policy').set(tenant.auth).expect(200);
    });
  });
});

describe('backing services down', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    // Redis on a port where nothing listens; the api role alone (workers need Redis to start).
    t = await createTestApp({ env: { REDIS_URL: 'redis://127.0.0.1:1', PROCESS_ROLE: 'api' } });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t.close();
    // ioredis arms a 2 s timer to destroy a socket that never connected; let it run out here.
    await new Promise((r) => setTimeout(r, 2100));
  });

  it('should answer /health (liveness) but 503 service_unavailable on /health/ready naming Redis', async () => {
    await t.http().get('/health').expect(200, { status: 'ok' });
    const error = expectError(await t.http().get('/health/ready'), 503, 'service_unavailable');
    expect(error.message).toMatch(/redis/i);
    expect(error.message).not.toMatch(/postgres/i);
  });

  it('should answer an authenticated request with 503 service_unavailable when Redis is unreachable', async () => {
    const res = await t.http().get('/v1/profile').set(tenant.auth);
    const error = expectError(res, 503, 'service_unavailable');
    expect(error.message).toBe(ERROR_CATALOGUE.service_unavailable.message);
    expect(error.details).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|ioredis|:1\b/i);
  });
});
