import { createTenant, createTestApp, TestApp } from '@test/support/test-app';

describe('idempotency store and once-shown secrets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PROCESS_ROLE: 'api' } });
  });
  afterAll(async () => t.close());

  it('should replay a created API key without keeping its secret in clear in the database', async () => {
    const tenant = await createTenant(t);
    const body = { name: 'ci key', permissions: ['posts:read'] };
    const first = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .set('Idempotency-Key', 'key-create-1')
      .send(body)
      .expect(201);
    const secret = first.body.secret as string;
    expect(secret).toMatch(/^svc_live_/);

    const replay = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .set('Idempotency-Key', 'key-create-1')
      .send(body)
      .expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);

    const rows: { body: string }[] = await t.ds.query(
      `SELECT response_body::text AS body FROM idempotency_keys WHERE key = 'key-create-1'`,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].body).not.toContain(secret);
    expect(rows[0].body).not.toContain('svc_live_');
  });
});
