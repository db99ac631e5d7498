import { randomBytes } from 'node:crypto';
import { expectError, rateHeaders, runAdminInProcess, runTs } from '@test/support/e2e-helpers';
import { adminQuery, dbUrl, runId } from '@test/support/db';
import { createTestApp, TestApp } from '@test/support/test-app';

/** `npm run admin -- …` without a build: the entry point itself through swc-node (a child process). */
const adminProcess = (args: string[], databaseUrl: string) =>
  runTs('src/cli/admin.ts', args, { DATABASE_URL: databaseUrl });
/** The same commands in this process (fast), with the service's Redis namespace (as an operator runs it). */
const admin = (args: string[], databaseUrl: string) =>
  runAdminInProcess(args, databaseUrl, redisPrefix ? { REDIS_PREFIX: redisPrefix } : {});

let redisPrefix: string | undefined;

describe('operator CLI', () => {
  // A database that does not exist yet: the CLI creates and migrates it. The run's teardown drops it.
  const name = `sps_t_${runId()}_cli_${randomBytes(3).toString('hex')}`;
  const databaseUrl = dbUrl(name);
  let t: TestApp;
  let first: { workspaceId: string; userId: string; profileId: string; apiKey: string };

  beforeAll(async () => {
    expect(await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).toHaveLength(0);
    const res = await adminProcess(['bootstrap', '--json'], databaseUrl);
    if (res.code !== 0) throw new Error(`bootstrap failed: ${res.stderr}`);
    first = JSON.parse(res.stdout.trim()) as typeof first;
    t = await createTestApp({ env: { DATABASE_URL: databaseUrl } });
    redisPrefix = t.redisPrefix;
  }, 120000);
  afterAll(async () => t?.close());

  it('should create the missing database, migrate it and print {workspaceId, userId, profileId, apiKey}', async () => {
    expect(await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).toHaveLength(1);
    expect(Object.keys(first).sort()).toEqual(['apiKey', 'profileId', 'userId', 'workspaceId']);
    expect(first.apiKey).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    const me = await t.http().get('/v1/profile').set('Authorization', `Bearer ${first.apiKey}`).expect(200);
    expect(me.body.profile.id).toBe(first.profileId);
    expect(rateHeaders(me)).toMatchObject({ limit: 16, policy: '16;w=60' });
    const [ws] = await t.ds.query<{ plan: string; trial_ends_at: Date }[]>(
      'SELECT plan, trial_ends_at FROM workspaces WHERE id = $1',
      [first.workspaceId],
    );
    expect(ws.plan).toBe('trial');
    expect(Math.round((ws.trial_ends_at.getTime() - Date.now()) / 86400_000)).toBe(14);
    const [owner] = await t.ds.query<
      {
        email: string;
        role: string;
      }[]
    >('SELECT email, role FROM users WHERE id = $1', [first.userId]);
    expect(owner).toEqual({ email: 'owner@example.com', role: 'owner' });
  });

  it('should take --workspace, --email, --plan and --rate-limit, and print text without --json', async () => {
    const res = await admin(
      ['bootstrap', '--workspace', 'Acme', '--email', 'Ops@Acme.test', '--plan', 'pro', '--rate-limit', '30'],
      databaseUrl,
    );
    expect(res.code).toBe(0);
    const key = /API key \(shown once\): (svc_live_\S+)/.exec(res.stdout)?.[1];
    expect(key).toBeDefined();
    const me = await t.http().get('/v1/profile').set('Authorization', `Bearer ${key}`).expect(200);
    expect(rateHeaders(me)).toMatchObject({ limit: 30, policy: '30;w=60' });
    const [ws] = await t.ds.query<
      {
        plan: string;
        trial_ends_at: Date | null;
        email: string;
      }[]
    >(
      `SELECT w.plan, w.trial_ends_at, u.email FROM workspaces w JOIN users u ON u.workspace_id = w.id WHERE w.name = 'Acme'`,
    );
    expect(ws).toEqual({ plan: 'pro', trial_ends_at: null, email: 'ops@acme.test' });
  });

  it('should change plans (an expired trial answers 402 on writes)', async () => {
    const auth = { Authorization: `Bearer ${first.apiKey}` };
    const expire = await admin(
      ['plan', '--workspace', first.workspaceId, '--plan', 'trial', '--trial-ends', '2020-01-01T00:00:00Z', '--json'],
      databaseUrl,
    );
    expect(expire.code).toBe(0);
    expect(JSON.parse(expire.stdout)).toEqual({
      workspaceId: first.workspaceId,
      plan: 'trial',
      trialEndsAt: '2020-01-01T00:00:00.000Z',
    });
    expectError(await t.http().post('/v1/profiles').set(auth).send({ name: 'x' }), 402, 'trial_expired');
    expect((await admin(['plan', '--workspace', first.workspaceId, '--plan', 'pro'], databaseUrl)).code).toBe(0);
    await t.http().post('/v1/profiles').set(auth).send({ name: 'x' }).expect(201);
  });

  it('should add users, refusing duplicates and unknown workspaces', async () => {
    const res = await admin(
      ['user', '--workspace', first.workspaceId, '--email', 'member@example.com', '--role', 'admin', '--json'],
      databaseUrl,
    );
    expect(res.code).toBe(0);
    const { userId } = JSON.parse(res.stdout) as { userId: string };
    const [row] = await t.ds.query<
      {
        workspace_id: string;
        role: string;
      }[]
    >('SELECT workspace_id, role FROM users WHERE id = $1', [userId]);
    expect(row).toEqual({ workspace_id: first.workspaceId, role: 'admin' });
    const dup = await admin(['user', '--workspace', first.workspaceId, '--email', 'MEMBER@example.com'], databaseUrl);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('already a user');
    const unknown = await admin(
      ['user', '--workspace', '3fa85f64-5717-4562-b3fc-2c963f66afa6', '--email', 'x@example.com'],
      databaseUrl,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No workspace');
  });

  it('should create further keys and set per-key rate-limit ceilings', async () => {
    const res = await admin(
      ['key', '--workspace', first.workspaceId, '--permissions', 'profiles:read', '--json'],
      databaseUrl,
    );
    expect(res.code).toBe(0);
    const key = JSON.parse(res.stdout) as { keyId: string; apiKey: string; profileId: string };
    expect(key.profileId).toBe(first.profileId);
    const auth = { Authorization: `Bearer ${key.apiKey}` };
    await t.http().get('/v1/profile').set(auth).expect(200);
    expect(
      expectError(await t.http().post('/v1/profiles').set(auth).send({ name: 'x' }), 403, 'insufficient_permission')
        .details,
    ).toEqual({ required: 'profiles:write' });

    const limit = await admin(['rate-limit', '--key', key.keyId, '--rate-limit', '7', '--json'], databaseUrl);
    expect(limit.code).toBe(0);
    expect(JSON.parse(limit.stdout)).toEqual({ keyId: key.keyId, rateLimitPerMinute: 7, rateLimitPerHour: 1000 });
    expect(rateHeaders(await t.http().get('/v1/profile').set(auth).expect(200))).toMatchObject({
      limit: 7,
      policy: '7;w=60',
    });

    const listed = await admin(['workspaces', '--json'], databaseUrl);
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((w) => w.id)).toContain(first.workspaceId);
  });

  it('should exit 1 with a clear message on bad arguments', async () => {
    const badPlan = await adminProcess(['bootstrap', '--plan', 'gold'], databaseUrl);
    expect(badPlan.code).toBe(1);
    expect(badPlan.stderr).toMatch(/--plan.*must be one of trial, starter, pro, enterprise/);
    const missing = await admin(['rate-limit', '--key', first.workspaceId], databaseUrl);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/required option '--rate-limit/);
    const unknownKey = await admin(
      ['rate-limit', '--key', '3fa85f64-5717-4562-b3fc-2c963f66afa6', '--rate-limit', '5'],
      databaseUrl,
    );
    expect(unknownKey.code).toBe(1);
    expect(unknownKey.stderr).toContain('No API key');
  });
});

describe('configuration at start-up', () => {
  it('should exit non-zero naming every bad variable, without a stack trace', async () => {
    const res = await runTs('src/main.ts', [], {
      PORT: 'eighty',
      DATABASE_URL: 'not a url',
      PROCESS_ROLE: 'both',
      WEBHOOK_RETRY_DELAYS_MS: '1,2,3',
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('Invalid configuration');
    expect(res.stderr).toMatch(/PORT: .*"eighty"/);
    expect(res.stderr).toMatch(/DATABASE_URL: /);
    expect(res.stderr).toMatch(/PROCESS_ROLE: /);
    expect(res.stderr).toMatch(/WEBHOOK_RETRY_DELAYS_MS: must list exactly 6 delays/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });
});
