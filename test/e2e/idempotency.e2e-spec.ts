import { createKey, expectError, pgClient, resetRateLimit, setKeyLimits } from '@test/support/e2e-helpers';
import { createTenant, createTestApp, eventually, Tenant, TestApp } from '@test/support/test-app';

describe('idempotency', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    t = await createTestApp();
  });
  beforeEach(async () => {
    // A workspace per test: profile counts and plan quotas start from scratch.
    tenant = await createTenant(t);
  });
  afterAll(async () => t.close());

  const countProfiles = async (name: string): Promise<number> =>
    (
      await t.ds.query<{ n: number }[]>(
        'SELECT count(*)::int AS n FROM profiles WHERE workspace_id = $1 AND name = $2',
        [tenant.workspaceId, name],
      )
    )[0].n;

  it('should replay the original status and body with Idempotent-Replayed: true, and run the write once', async () => {
    const first = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'create-1')
      .send({ name: 'Once' })
      .expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'create-1')
      .send({ name: 'Once' })
      .expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await countProfiles('Once')).toBe(1);
    const events = await t.ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'profile.created'`,
      [tenant.workspaceId],
    );
    expect(events[0].n).toBe(1);
  });

  it('should answer 409 idempotency_key_reused for the same key with another body (or query)', async () => {
    await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'reuse')
      .send({ name: 'A' })
      .expect(201);
    expectError(
      await t.http().post('/v1/profiles').set(tenant.auth).set('Idempotency-Key', 'reuse').send({ name: 'B' }),
      409,
      'idempotency_key_reused',
    );
    expectError(
      await t
        .http()
        .post(`/v1/profiles?profileId=${tenant.profileId}`)
        .set(tenant.auth)
        .set('Idempotency-Key', 'reuse')
        .send({ name: 'A' }),
      409,
      'idempotency_key_reused',
    );
    expect(await countProfiles('B')).toBe(0);
    // Key order in the JSON does not make it another body.
    const p = await t
      .http()
      .put('/v1/policy')
      .set(tenant.auth)
      .set('Idempotency-Key', 'order')
      .send({ requireApproval: false, blockedTerms: ['x'] })
      .expect(200);
    const q = await t
      .http()
      .put('/v1/policy')
      .set(tenant.auth)
      .set('Idempotency-Key', 'order')
      .send({ blockedTerms: ['x'], requireApproval: false })
      .expect(200);
    expect(q.headers['idempotent-replayed']).toBe('true');
    expect(q.text).toBe(p.text);
  });

  it('should scope keys to the API key and the route', async () => {
    const second = await createKey(t, tenant, { name: 'second' });
    await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'shared')
      .send({ name: 'Scoped' })
      .expect(201);
    const otherKey = await t
      .http()
      .post('/v1/profiles')
      .set(second.auth)
      .set('Idempotency-Key', 'shared')
      .send({ name: 'Scoped' })
      .expect(201);
    expect(otherKey.headers['idempotent-replayed']).toBeUndefined();
    expect(await countProfiles('Scoped')).toBe(2);
    // Same key, another route: a separate write.
    const key = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .set('Idempotency-Key', 'shared')
      .send({ name: 'Scoped' })
      .expect(201);
    expect(key.headers['idempotent-replayed']).toBeUndefined();
    // Same key, another resource path.
    const [p1, p2] = await t.ds.query<{ id: string }[]>(
      'SELECT id FROM profiles WHERE workspace_id = $1 AND name = $2',
      [tenant.workspaceId, 'Scoped'],
    );
    await t
      .http()
      .patch(`/v1/profiles/${p1.id}`)
      .set(tenant.auth)
      .set('Idempotency-Key', 'patch')
      .send({ description: 'd' })
      .expect(200);
    const other = await t
      .http()
      .patch(`/v1/profiles/${p2.id}`)
      .set(tenant.auth)
      .set('Idempotency-Key', 'patch')
      .send({ description: 'd' })
      .expect(200);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
  });

  it('should store and replay 4xx answers (the envelope naming this request), in the legacy shape when asked', async () => {
    const first = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'bad-body')
      .send({ name: 7 });
    const e1 = expectError(first, 400, 'invalid_request');
    const replay = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'bad-body')
      .send({ name: 7 });
    const e2 = expectError(replay, 400, 'invalid_request');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['original-request-id']).toBe(e1.requestId);
    expect({ ...e2, requestId: 'x' }).toEqual({ ...e1, requestId: 'x' });
    const legacy = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'bad-body')
      .set('Service-Error-Format', 'legacy')
      .send({ name: 7 })
      .expect(400);
    expect(legacy.body).toEqual({ error: e1.message, code: 'invalid_request' });
    expect(legacy.headers['idempotent-replayed']).toBe('true');

    const missing = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
    expectError(
      await t.http().delete(`/v1/profiles/${missing}`).set(tenant.auth).set('Idempotency-Key', 'gone'),
      404,
      'not_found',
    );
    const gone = await t.http().delete(`/v1/profiles/${missing}`).set(tenant.auth).set('Idempotency-Key', 'gone');
    expectError(gone, 404, 'not_found');
    expect(gone.headers['idempotent-replayed']).toBe('true');
  });

  it('should not store a 5xx: the retry runs again (and the failed write left nothing behind)', async () => {
    await t.ds.query('ALTER TABLE events RENAME TO events_hidden_for_test');
    try {
      expectError(
        await t
          .http()
          .post('/v1/profiles')
          .set(tenant.auth)
          .set('Idempotency-Key', 'flaky')
          .send({ name: 'AfterCrash' }),
        500,
        'internal_error',
      );
    } finally {
      await t.ds.query('ALTER TABLE events_hidden_for_test RENAME TO events');
    }
    // The profile and its outbox row are one transaction: the failed outbox write rolled the profile back.
    expect(await countProfiles('AfterCrash')).toBe(0);
    const retry = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'flaky')
      .send({ name: 'AfterCrash' })
      .expect(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const replay = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'flaky')
      .send({ name: 'AfterCrash' })
      .expect(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await countProfiles('AfterCrash')).toBe(1);
  });

  it('should not store a 429: once the window frees, the same key runs', async () => {
    const key = await createKey(t, tenant, { name: 'slow', rateLimitPerMinute: 1 });
    await setKeyLimits(t, key.id, 1, 1000);
    await t.http().get('/v1/profile').set(key.auth).expect(200);
    expectError(
      await t.http().post('/v1/profiles').set(key.auth).set('Idempotency-Key', 'limited').send({ name: 'Limited' }),
      429,
      'rate_limit_exceeded',
    );
    await resetRateLimit(t, key.id);
    const res = await t
      .http()
      .post('/v1/profiles')
      .set(key.auth)
      .set('Idempotency-Key', 'limited')
      .send({ name: 'Limited' })
      .expect(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await countProfiles('Limited')).toBe(1);
  });

  it('should answer 409 idempotency_key_in_use with Retry-After while the first request runs, with exactly one effect', async () => {
    // Hold the lock profile creation takes (per workspace) from our own connection, so the first
    // request is provably still running while the others arrive.
    const db = await pgClient(t);
    try {
      await db.query('SELECT pg_advisory_lock(hashtext($1))', [`profiles:${tenant.workspaceId}`]);
      const first = t
        .http()
        .post('/v1/profiles')
        .set(tenant.auth)
        .set('Idempotency-Key', 'race')
        .send({ name: 'Raced' })
        .then((r) => r);
      await eventually(async () => {
        const rows = await t.ds.query<unknown[]>(
          `SELECT 1 FROM idempotency_keys WHERE key = 'race' AND response_status IS NULL`,
        );
        return rows.length === 1;
      });
      const concurrent = await Promise.all(
        Array.from({ length: 5 }, () =>
          t.http().post('/v1/profiles').set(tenant.auth).set('Idempotency-Key', 'race').send({ name: 'Raced' }),
        ),
      );
      for (const res of concurrent) {
        expectError(res, 409, 'idempotency_key_in_use');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      expect(await countProfiles('Raced')).toBe(0);
      await db.query('SELECT pg_advisory_unlock(hashtext($1))', [`profiles:${tenant.workspaceId}`]);
      const done = await first;
      expect(done.status).toBe(201);
      const replay = await t
        .http()
        .post('/v1/profiles')
        .set(tenant.auth)
        .set('Idempotency-Key', 'race')
        .send({ name: 'Raced' })
        .expect(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(done.text);
      expect(await countProfiles('Raced')).toBe(1);
    } finally {
      await db.end();
    }
  });

  it('should create exactly one row when many identical requests race (each answer is the original, a replay or in_use)', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        t.http().post('/v1/profiles').set(tenant.auth).set('Idempotency-Key', 'burst').send({ name: 'Burst' }),
      ),
    );
    expect(await countProfiles('Burst')).toBe(1);
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    expect(new Set(created.map((r) => r.body.profile.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, 'idempotency_key_in_use');
  });

  it('should keep a key 24 hours, after which it may be used again', async () => {
    await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'daily')
      .send({ name: 'Day1' })
      .expect(201);
    const [row] = await t.ds.query<{ ttl: number }[]>(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM idempotency_keys WHERE key = 'daily'`,
    );
    expect(row.ttl).toBe(24 * 3600);
    await t.ds.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = 'daily'`);
    const next = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'daily')
      .send({ name: 'Day2' })
      .expect(201);
    expect(next.headers['idempotent-replayed']).toBeUndefined();
  });

  it('should let a retry take over a key whose first request died (its lock lapsed)', async () => {
    const first = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'orphan')
      .send({ name: 'Orphan' })
      .expect(201);
    await t.ds.query('DELETE FROM profiles WHERE id = $1', [first.body.profile.id]);
    // As if the process had crashed after claiming: no response stored, lock already lapsed.
    await t.ds.query(
      `UPDATE idempotency_keys SET response_status = NULL, response_body = NULL, locked_until = now() - interval '1 second' WHERE key = 'orphan'`,
    );
    const retry = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .set('Idempotency-Key', 'orphan')
      .send({ name: 'Orphan' })
      .expect(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await countProfiles('Orphan')).toBe(1);
    // While the lock has not lapsed, the same situation is "in use".
    await t.ds.query(
      `UPDATE idempotency_keys SET response_status = NULL, response_body = NULL, locked_until = now() + interval '30 seconds' WHERE key = 'orphan'`,
    );
    expectError(
      await t.http().post('/v1/profiles').set(tenant.auth).set('Idempotency-Key', 'orphan').send({ name: 'Orphan' }),
      409,
      'idempotency_key_in_use',
    );
  });

  it('should validate the header and ignore it on reads', async () => {
    expect(
      expectError(
        await t
          .http()
          .post('/v1/profiles')
          .set(tenant.auth)
          .set('Idempotency-Key', 'k'.repeat(256))
          .send({ name: 'x' }),
        400,
        'invalid_request',
      ).details,
    ).toEqual({
      field: 'Idempotency-Key',
    });
    const read = await t.http().get('/v1/profile').set(tenant.auth).set('Idempotency-Key', 'read').expect(200);
    const again = await t.http().get('/v1/profile').set(tenant.auth).set('Idempotency-Key', 'read').expect(200);
    expect(read.headers['idempotent-replayed']).toBeUndefined();
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await t.ds.query<unknown[]>(`SELECT 1 FROM idempotency_keys WHERE key = 'read'`)).toHaveLength(0);
  });

  it('should make every write idempotent (PUT, PATCH, DELETE, key creation)', async () => {
    const put1 = await t
      .http()
      .put('/v1/policy')
      .set(tenant.auth)
      .set('Idempotency-Key', 'put')
      .send({ blockedTerms: ['spam'] })
      .expect(200);
    const put2 = await t
      .http()
      .put('/v1/policy')
      .set(tenant.auth)
      .set('Idempotency-Key', 'put')
      .send({ blockedTerms: ['spam'] })
      .expect(200);
    expect(put2.headers['idempotent-replayed']).toBe('true');
    expect(put2.text).toBe(put1.text);
    const updates = await t.ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND type = 'policy.updated'`,
      [tenant.workspaceId],
    );
    expect(updates[0].n).toBe(1);

    const k1 = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .set('Idempotency-Key', 'key')
      .send({ name: 'k' })
      .expect(201);
    const k2 = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .set('Idempotency-Key', 'key')
      .send({ name: 'k' })
      .expect(201);
    expect(k2.body.secret).toBe(k1.body.secret); // the stored answer, not a second key
    const keys = await t.ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1 AND name = 'k'`,
      [tenant.workspaceId],
    );
    expect(keys[0].n).toBe(1);

    const d1 = await t
      .http()
      .delete(`/v1/api-keys/${k1.body.apiKey.id}`)
      .set(tenant.auth)
      .set('Idempotency-Key', 'del')
      .expect(200);
    const d2 = await t
      .http()
      .delete(`/v1/api-keys/${k1.body.apiKey.id}`)
      .set(tenant.auth)
      .set('Idempotency-Key', 'del')
      .expect(200);
    expect(d2.headers['idempotent-replayed']).toBe('true');
    expect(d2.text).toBe(d1.text);
  });
});
