import { createKey, expectError, runAdminInProcess, sql } from '@test/support/e2e-helpers';
import { addUser } from '@test/support/post-fixtures';
import { createApiApp, createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

/**
 * A key never exceeds its maker (one way to make keys), and the plan caps on keys per workspace
 * and subscriptions per profile.
 */
describe('keys made by keys', () => {
  let t: TestApp;
  let tenant: Tenant;
  let maker: { id: string; auth: { Authorization: string } };
  const expiry = new Date(Date.now() + 7 * 86_400_000);
  expiry.setUTCMilliseconds(0);

  beforeAll(async () => {
    ({ t, tenant } = await createApiApp());
    maker = await createKey(t, tenant, {
      expiresAt: expiry.toISOString(),
      maxPostsPerDay: 5,
      rateLimitPerMinute: 100,
      rateLimitPerHour: 2000,
    });
  });
  afterAll(async () => t.close());

  const mint = (body: Record<string, unknown>) =>
    t
      .http()
      .post('/v1/api-keys')
      .set(maker.auth)
      .send({ name: 'child', ...body });
  const keyCount = async () =>
    (
      await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1', [
        tenant.workspaceId,
      ])
    )[0].n;

  it('inherits the maker expiry, daily cap and rate ceilings when they are omitted', async () => {
    const res = await mint({}).expect(201);
    expect(res.body.apiKey).toMatchObject({
      expiresAt: expiry.toISOString(),
      maxPostsPerDay: 5,
      rateLimitPerMinute: 100,
      rateLimitPerHour: 2000,
    });
    const lower = await mint({
      expiresAt: new Date(expiry.getTime() - 86_400_000).toISOString(),
      maxPostsPerDay: 2,
      rateLimitPerMinute: 10,
      rateLimitPerHour: 100,
    }).expect(201);
    expect(lower.body.apiKey).toMatchObject({ maxPostsPerDay: 2, rateLimitPerMinute: 10, rateLimitPerHour: 100 });
  });

  it('refuses a later expiry or a higher cap or ceiling, naming the field, and writes nothing', async () => {
    const before = await keyCount();
    const cases: [Record<string, unknown>, string][] = [
      [{ expiresAt: new Date(expiry.getTime() + 1000).toISOString() }, 'expiresAt'],
      [{ maxPostsPerDay: 6 }, 'maxPostsPerDay'],
      [{ rateLimitPerMinute: 101 }, 'rateLimitPerMinute'],
      [{ rateLimitPerHour: 2001 }, 'rateLimitPerHour'],
      [{ expiresAt: '0000-01-01T00:00:00Z' }, 'expiresAt'],
    ];
    for (const [body, field] of cases)
      expect(expectError(await mint(body), 400, 'invalid_request').details).toEqual({ field });
    expect(await keyCount()).toBe(before);
  });

  it('cannot mint a key for another person (no borrowing an approver identity)', async () => {
    const approver = await addUser(t, tenant);
    const before = await keyCount();
    expect(expectError(await mint({ ownerUserId: approver }), 400, 'invalid_request').details).toEqual({
      field: 'ownerUserId',
    });
    expect(await keyCount()).toBe(before);
    // Its own owner is fine (and the default).
    const own = await mint({ ownerUserId: tenant.userId }).expect(201);
    expect(own.body.apiKey.ownerUserId).toBe(tenant.userId);
    expect((await mint({}).expect(201)).body.apiKey.ownerUserId).toBe(tenant.userId);
  });

  it('records the same audit payload for keys made by the API, the operator CLI and bootstrap', async () => {
    const cli = await runAdminInProcess(['key', '--workspace', tenant.workspaceId, '--json'], t.databaseUrl);
    expect(cli.code).toBe(0);
    const { keyId: cliKeyId, apiKey: cliSecret } = JSON.parse(cli.stdout) as { keyId: string; apiKey: string };
    const apiKeyId = (await mint({}).expect(201)).body.apiKey.id as string;
    const rows = await sql<{ data: { apiKey: Record<string, unknown> }; actor: { type: string } }>(
      t,
      `SELECT data, actor FROM events WHERE type = 'api_key.created' AND data->'apiKey'->>'id' = ANY($1)`,
      [[cliKeyId, apiKeyId, tenant.keyId]],
    );
    expect(rows).toHaveLength(3);
    const shapes = new Set(rows.map((r) => Object.keys(r.data.apiKey).sort().join(',')));
    expect(shapes.size).toBe(1);
    expect([...shapes][0]).toContain('rateLimitPerHour');
    expect(JSON.stringify(rows)).not.toMatch(/keyHash|key_hash|secret/);
    expect(JSON.stringify(rows)).not.toContain(cliSecret);
  });
});

describe('plan caps on fan-out', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { PROCESS_ROLE: 'api' } });
  });
  afterAll(async () => t.close());

  it('caps the keys of a workspace (403 plan_limit with details); revoking frees a slot', async () => {
    const tenant = await createTenant(t, { plan: 'trial' });
    const ids: string[] = [];
    for (let i = 1; i < 10; i++) ids.push((await createKey(t, tenant, {})).id);
    const refused = await t.http().post('/v1/api-keys').set(tenant.auth).send({ name: 'one too many' });
    expect(expectError(refused, 403, 'plan_limit').details).toEqual({ entitlement: 'api_keys', usage: 10, limit: 10 });
    await t.http().delete(`/v1/api-keys/${ids[0]}`).set(tenant.auth).expect(200);
    await t.http().post('/v1/api-keys').set(tenant.auth).send({ name: 'fits again' }).expect(201);
  });

  it('caps the subscriptions of a profile (403 plan_limit with details)', async () => {
    const tenant = await createTenant(t, { plan: 'trial' });
    const create = () =>
      t
        .http()
        .post('/v1/webhooks')
        .set(tenant.auth)
        .send({ url: 'http://127.0.0.1:9/hooks', events: ['*'] });
    for (let i = 0; i < 5; i++) await create().expect(201);
    expect(expectError(await create(), 403, 'plan_limit').details).toEqual({
      entitlement: 'webhooks_per_profile',
      usage: 5,
      limit: 5,
    });
    const [row] = await sql<{ n: number }>(
      t,
      'SELECT count(*)::int AS n FROM webhook_subscriptions WHERE workspace_id = $1',
      [tenant.workspaceId],
    );
    expect(row.n).toBe(5);
  });
});
