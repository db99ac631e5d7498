import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expectError, expectMalformedJson, postMalformedJson, rateHeaders, sql } from '@test/support/e2e-helpers';
import { createApiApp, eventually, freePort, Tenant, TestApp } from '@test/support/test-app';

/** No secret in a log, bad input never yields a 5xx, RateLimit headers and the 401 order. */
describe('hardening', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => ({ t, tenant } = await createApiApp()));
  afterAll(async () => t.close());

  const profiles = async () =>
    (
      await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM profiles WHERE workspace_id = $1', [
        tenant.workspaceId,
      ])
    )[0].n;

  describe('bad input never yields a 5xx', () => {
    it('answers a body whose Content-Encoding does not match its bytes with 400 naming the body', async () => {
      const before = await profiles();
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const res = await t
          .http()
          .post('/v1/profiles')
          .set(tenant.auth)
          .set('Content-Type', 'application/json')
          .set('Content-Encoding', encoding)
          .send('{"name":"plain bytes, not compressed"}');
        expect(expectError(res, 400, 'invalid_request').details).toEqual({ field: 'body' });
        rateHeaders(res);
      }
      // A body that does match its encoding is read as usual.
      const body = JSON.stringify({ name: 'Compressed' });
      for (const [encoding, bytes] of [
        ['gzip', gzipSync(body)],
        ['deflate', deflateSync(body)],
        ['br', brotliCompressSync(body)],
      ] as const) {
        const res = await fetch(`${t.url}/v1/profiles`, {
          method: 'POST',
          headers: { ...tenant.auth, 'Content-Type': 'application/json', 'Content-Encoding': encoding },
          body: bytes,
        });
        expect([encoding, res.status]).toEqual([encoding, 201]);
      }
      expect(await profiles()).toBe(before + 3);
    });

    it('refuses a NUL character in any string of a body or query, naming the field, writing nothing', async () => {
      const before = await profiles();
      const body = await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'a\u0000b' });
      expect(expectError(body, 400, 'invalid_request').details).toEqual({ field: 'name' });
      const nested = await t
        .http()
        .put('/v1/policy')
        .set(tenant.auth)
        .send({ blockedTerms: ['ok', 'bad\u0000'] });
      expect(expectError(nested, 400, 'invalid_request').details).toEqual({ field: 'blockedTerms[1]' });
      const query = await t.http().get('/v1/events?type=post%00created').set(tenant.auth);
      expect(expectError(query, 400, 'invalid_request').details).toEqual({ field: 'type' });
      const post = await t
        .http()
        .post('/v1/posts')
        .set(tenant.auth)
        .send({ content: { message: 'x\u0000' }, accountIds: [randomUUID()] });
      expect(expectError(post, 400, 'invalid_request').details).toEqual({ field: 'content.message' });
      expect(await profiles()).toBe(before);
    });

    it('bounds every integer query parameter (no OFFSET overflow)', async () => {
      for (const path of ['/v1/posts', '/v1/events', '/v1/logs', '/v1/api-keys', '/v1/profiles', '/v1/webhooks']) {
        for (const page of ['99999999999999999', '9223372036854775807', '1000001']) {
          const res = await t.http().get(`${path}?page=${page}`).set(tenant.auth);
          expect(expectError(res, 400, 'invalid_request').details).toEqual({ field: 'page' });
        }
      }
      const status = await t.http().get('/v1/logs?status=99999999999999999999').set(tenant.auth);
      expect(expectError(status, 400, 'invalid_request').details).toEqual({ field: 'status' });
      // A huge limit is still clamped, as the spec says.
      expect((await t.http().get('/v1/posts?limit=99999999').set(tenant.auth).expect(200)).body.limit).toBe(100);
    });

    it('answers a URL too large for the HTTP parser with the envelope too', async () => {
      const res = await t
        .http()
        .get(`/v1/posts?q=${'x'.repeat(20_000)}`)
        .set(tenant.auth);
      expect(expectError(res, 431, 'invalid_request').details).toEqual({ field: 'headers' });
    });

    it('refuses a comment cursor holding a date Postgres cannot cast', async () => {
      for (const at of ['0000-01-01T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '2026-02-30T00:00:00Z']) {
        const cursor = Buffer.from(JSON.stringify([at, randomUUID()])).toString('base64url');
        const res = await t.http().get(`/v1/comments?cursor=${cursor}`).set(tenant.auth);
        expect(expectError(res, 400, 'invalid_request').details).toEqual({ field: 'cursor' });
      }
    });

    it('refuses analytics dates Postgres cannot store', async () => {
      for (const [q, field] of [
        ['from=0000-01-01', 'from'],
        ['to=0000-12-31', 'to'],
        ['from=0001-01-01&to=0001-01-02', 'from'],
      ]) {
        const res = await t.http().get(`/v1/analytics/history?${q}`).set(tenant.auth);
        expect(expectError(res, 400, 'invalid_request').details).toEqual({ field });
      }
    });
  });

  describe('RateLimit headers and the 401 order', () => {
    it('gives a malformed JSON body sent with a valid key its 400 with the RateLimit headers', async () => {
      const res = await postMalformedJson(t, '/v1/profiles', tenant.auth);
      expectMalformedJson(res);
      rateHeaders(res);
    });

    it('answers 401 with WWW-Authenticate: Bearer before judging the body', async () => {
      const noKey = await postMalformedJson(t, '/v1/profiles');
      expectError(noKey, 401, 'authentication_required');
      expect(noKey.headers['www-authenticate']).toBe('Bearer');
      const badKey = await postMalformedJson(t, '/v1/profiles', {
        Authorization: 'Bearer svc_live_nottherightkey000000000000000000',
        'Content-Encoding': 'gzip',
      });
      expectError(badKey, 401, 'invalid_api_key');
      expect(badKey.headers['www-authenticate']).toMatch(/^Bearer/);
      const get = await t.http().get('/v1/posts');
      expect(get.headers['www-authenticate']).toBe('Bearer');
    });

    it('carries the RateLimit headers on every answer to a valid key', async () => {
      const answers = [
        await t.http().get('/v1/profile').set(tenant.auth),
        await t.http().get('/v1/no-such-route').set(tenant.auth),
        await t.http().get(`/v1/posts/${randomUUID()}`).set(tenant.auth),
        await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 5 }),
        await t.http().get('/v1/profile?profileId=nope').set(tenant.auth),
      ];
      expect(answers.map((r) => r.status)).toEqual([200, 404, 404, 400, 403]);
      for (const r of answers) rateHeaders(r);
    });
  });
});

describe('docker-compose.yml is safe to run on a server', () => {
  const compose = readFileSync(join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
  const service = (name: string) => compose.split(/\n  (?=[a-z]+:\n)/).find((b) => b.startsWith(`${name}:`)) ?? '';

  it('publishes Postgres and Redis on 127.0.0.1 only, behind passwords', () => {
    for (const name of ['postgres', 'redis']) {
      const ports = [...service(name).matchAll(/^\s+- "([^"]+)"$/gm)].map((m) => m[1]);
      expect(ports.length).toBeGreaterThan(0);
      for (const p of ports) expect(p).toMatch(/^127\.0\.0\.1:/);
    }
    expect(compose).not.toMatch(/POSTGRES_HOST_AUTH_METHOD:\s*trust/);
    expect(service('postgres')).toMatch(/POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?/);
    expect(service('redis')).toContain('--requirepass');
    expect(compose).toMatch(/REDIS_URL: redis:\/\/:\$\{REDIS_PASSWORD:\?/);
  });

  it('does not force the sandbox on (NODE_ENV decides)', () => {
    expect(compose).toMatch(/SANDBOX_PLATFORMS: \$\{SANDBOX_PLATFORMS:-\}/);
  });
});

describe('no secret in a log', () => {
  let t: TestApp;
  let tenant: Tenant;
  let out = '';
  let child: ReturnType<typeof spawn>;
  let base = '';

  beforeAll(async () => {
    ({ t, tenant } = await createApiApp());
    // A real API process: its log lines are what an operator would collect. Its port is free when
    // chosen, but the process binds it seconds later: should something take it meanwhile
    // (EADDRINUSE), the process starts again on another one.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      out = '';
      child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
        cwd: join(__dirname, '..', '..'),
        env: {
          ...process.env,
          SWC_NODE_PROJECT: 'tsconfig.json',
          PROCESS_ROLE: 'api',
          PORT: String(port),
          DATABASE_URL: t.databaseUrl,
          REDIS_PREFIX: t.redisPrefix,
          PUBLIC_BASE_URL: base,
          DB_MIGRATE_ON_START: 'false',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
      const listening = await new Promise<boolean>((resolve) => {
        child.stdout?.on('data', () => out.includes('API listening on') && resolve(true));
        child.once('exit', () => resolve(false));
      });
      if (listening) break;
      if (attempt === 3 || !out.includes('EADDRINUSE')) throw new Error(`the API process exited:\n${out.slice(-3000)}`);
    }
    await eventually(async () => (await fetch(`${base}/health`)).ok, { timeoutMs: 90_000, intervalMs: 250 });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await t.close();
  });

  it('logs the path and a redacted query, never tokens, OAuth codes or upload signatures', async () => {
    const secrets = {
      connect: 'CONNECTPAGETOKEN1234',
      code: 'OAUTHCODE5678',
      state: 'OAUTHSTATE9012',
      sig: 'UPLOADSIG3456',
      upload: 'UPLOADPAGETOKEN7890',
      other: 'SOMESECRETVALUE',
    };
    await fetch(`${base}/connect/${randomUUID()}?token=${secrets.connect}`);
    await fetch(`${base}/connect/callback/facebook?code=${secrets.code}&state=${secrets.state}`);
    await fetch(`${base}/media/upload/abc/def.png?expires=1&sig=${secrets.sig}`, { method: 'PUT', body: 'x' });
    await fetch(`${base}/media/upload-sessions/${randomUUID()}?token=${secrets.upload}`);
    await fetch(`${base}/v1/posts?page=1&api_key=${secrets.other}`, { headers: tenant.auth });
    await eventually(async () => out.includes('/v1/posts?page=1&api_key=[REDACTED]'), { timeoutMs: 10_000 });
    // One line per request, carrying its id twice (the reqId binding and req.id) and the workspace.
    const lines = out.split('\n').filter((l) => l.includes('/v1/posts?page=1&api_key=[REDACTED]'));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as { reqId: string; req: { id: string }; workspaceId: string; msg: string };
    expect(line).toMatchObject({ req: { id: line.reqId }, workspaceId: tenant.workspaceId, msg: 'request completed' });
    expect(out).toContain('/connect/callback/facebook?code=[REDACTED]&state=[REDACTED]');
    expect(out).toContain('/media/upload/abc/def.png?expires=[REDACTED]&sig=[REDACTED]');
    for (const secret of Object.values(secrets)) expect(out).not.toContain(secret);
    expect(out).not.toContain(tenant.apiKey);
  });
});
