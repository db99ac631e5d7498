import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { collect, components, SpsApiError, SpsClient } from '../../client/src';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';
import { insertAccount } from '@test/support/publishing';

const ROOT = resolve(__dirname, '../..');

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the `sps` CLI from its TypeScript source, as a separate process. */
function sps(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['-r', '@swc-node/register', 'client/src/cli.ts', ...args],
      { cwd: ROOT, env: { ...process.env, SPS_API_KEY: undefined, SPS_BASE_URL: undefined, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('typed client and sps CLI against the service', () => {
  let t: TestApp;
  let tenant: Tenant;
  let client: SpsClient;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    client = new SpsClient({ apiKey: tenant.apiKey, baseUrl: t.url });
  });
  afterAll(async () => t.close());

  async function keyWith(
    permissions: NonNullable<components['schemas']['CreateApiKeyDto']['permissions']>,
    extra: Record<string, unknown> = {},
  ): Promise<string> {
    const created = await client.apiKeys.create({ name: `client e2e ${permissions.join(',')}`, permissions, ...extra });
    return created.secret;
  }

  describe('SpsClient', () => {
    it('should read profiles through the resource helpers and the typed openapi-fetch client', async () => {
      const list = await client.profiles.list({ limit: 10 });
      expect(list.profiles.map((p) => p.id)).toContain(tenant.profileId);
      expect((await client.profiles.current()).profile.id).toBe(tenant.profileId);
      expect((await client.profiles.get(tenant.profileId)).profile.id).toBe(tenant.profileId);
      const { data, error, response } = await client.api.GET('/v1/profiles', { params: { query: { limit: 1 } } });
      expect(error).toBeUndefined();
      expect(response.status).toBe(200);
      expect(data?.limit).toBe(1);
    });

    it('should create API keys, replay a write sent twice with the same Idempotency-Key, and list keys page by page', async () => {
      const idempotencyKey = randomUUID();
      const first = await client.apiKeys.create(
        { name: 'replayed', permissions: ['profiles:read'] },
        { idempotencyKey },
      );
      const second = await client.apiKeys.create(
        { name: 'replayed', permissions: ['profiles:read'] },
        { idempotencyKey },
      );
      expect(second.apiKey.id).toBe(first.apiKey.id);
      expect(first.secret).toMatch(/^svc_live_/);
      const all = await collect(client.apiKeys.iterate({ limit: 1 }));
      expect(all.filter((k) => k.id === first.apiKey.id)).toHaveLength(1);
      expect(all.length).toBeGreaterThanOrEqual(2);
    });

    it('should iterate the audit trail', async () => {
      await keyWith(['profiles:read']);
      const events = await collect(client.events.iterate({ type: 'api_key.created', limit: 1 }));
      expect(events.length).toBeGreaterThanOrEqual(1);
      expect(events.every((e) => e.type === 'api_key.created')).toBe(true);
    });

    it('should throw SpsApiError with code, status, requestId and details', async () => {
      const limited = new SpsClient({ apiKey: await keyWith(['profiles:read']), baseUrl: t.url });
      const error = (await limited.events.list().catch((e: unknown) => e)) as SpsApiError;
      expect(error).toBeInstanceOf(SpsApiError);
      expect(error).toMatchObject({
        code: 'insufficient_permission',
        status: 403,
        details: { required: 'audit:read' },
      });
      expect(error.requestId).toMatch(/^req_/);
      const missing = (await client.profiles.get(randomUUID()).catch((e: unknown) => e)) as SpsApiError;
      expect(missing).toMatchObject({ code: 'not_found', status: 404 });
      const revoked = new SpsClient({ apiKey: 'svc_live_00000000000000000000000000000000', baseUrl: t.url });
      await expect(revoked.profiles.list()).rejects.toMatchObject({ code: 'invalid_api_key', status: 401 });
    });

    it("should surface 429 rate_limit_exceeded with the service's Retry-After when retries are off", async () => {
      const slow = new SpsClient({
        apiKey: await keyWith(['profiles:read'], { rateLimitPerMinute: 1 }),
        baseUrl: t.url,
        maxRetries: 0,
      });
      await slow.profiles.current();
      const error = (await slow.profiles.current().catch((e: unknown) => e)) as SpsApiError;
      expect(error).toMatchObject({ code: 'rate_limit_exceeded', status: 429, retryable: true });
      expect(error.retryAfter).toBeGreaterThan(0);
      expect(error.retryAfter).toBeLessThanOrEqual(60);
    });
  });

  describe('sps CLI', () => {
    // Each command is a separate Node process compiling TypeScript on the fly: give them room on a busy machine.
    jest.setTimeout(120_000);
    const env = () => ({ SPS_API_KEY: tenant.apiKey, SPS_BASE_URL: t.url });

    it('should print profiles, the current profile, keys and events as JSON', async () => {
      const [profiles, current, keys, events] = await Promise.all([
        sps(['profiles', 'list'], env()),
        sps(['profiles', 'get'], env()),
        sps(['keys', 'list', '--all', '--limit', '1'], env()),
        sps(['events', 'list', '--type', 'api_key.created'], env()),
      ]);
      expect(profiles).toMatchObject({ code: 0, stderr: '' });
      expect((JSON.parse(profiles.stdout) as { profiles: { id: string }[] }).profiles.map((p) => p.id)).toContain(
        tenant.profileId,
      );

      expect((JSON.parse(current.stdout) as { profile: { id: string } }).profile.id).toBe(tenant.profileId);

      expect(keys.code).toBe(0);
      expect(Array.isArray(JSON.parse(keys.stdout))).toBe(true);

      expect(events.code).toBe(0);
      expect(
        (JSON.parse(events.stdout) as { events: { type: string }[] }).events.every((e) => e.type === 'api_key.created'),
      ).toBe(true);
    });

    it('should dry-run and then create posts in bulk from a JSON file', async () => {
      const account = await insertAccount(t, tenant, 'facebook');
      const dir = mkdtempSync(join(tmpdir(), 'sps-bulk-'));
      const file = join(dir, 'posts.json');
      writeFileSync(
        file,
        JSON.stringify([
          { content: 'bulk one', accountIds: [account.id] },
          { content: 'bulk two', accountIds: [account.id] },
        ]),
      );
      const dry = await sps(['posts', 'bulk', '--file', file, '--dry-run'], env());
      expect(dry.code).toBe(0);
      expect(JSON.parse(dry.stdout)).toEqual({
        valid: true,
        results: [
          { index: 0, valid: true, errors: [] },
          { index: 1, valid: true, errors: [] },
        ],
      });
      const created = await sps(['posts', 'bulk', '--file', file], env());
      expect(created.code).toBe(0);
      const posts = (JSON.parse(created.stdout) as { posts: { id: string; state: string }[] }).posts;
      expect(posts.map((p) => p.state)).toEqual(['draft', 'draft']);
      expect((await client.posts.get(posts[1].id)).post.content.message).toBe('bulk two');
    });

    it('should send --first-comment with the post, and validate it per account', async () => {
      const [fb, tiktok] = [await insertAccount(t, tenant, 'facebook'), await insertAccount(t, tenant, 'tiktok')];
      const created = await sps(
        ['posts', 'create', '--text', 'with a comment', '--accounts', fb.id, '--first-comment', 'Link in bio'],
        env(),
      );
      expect(created.code).toBe(0);
      const post = (JSON.parse(created.stdout) as { post: { targets: { firstComment: unknown }[] } }).post;
      expect(post.targets[0].firstComment).toEqual({ status: 'pending', id: null, error: null });
      expect(
        (await client.posts.get((JSON.parse(created.stdout) as { id: string }).id)).post.content.firstComment,
      ).toBe('Link in bio');
      const checked = await sps(
        [
          'posts',
          'validate',
          '--text',
          'x',
          '--accounts',
          tiktok.id,
          '--media',
          `${t.url}/v.mp4`,
          '--first-comment',
          'y',
        ],
        env(),
      );
      expect(checked.code).toBe(0);
      expect(JSON.parse(checked.stdout)).toMatchObject({
        valid: false,
        errors: [{ accountId: tiktok.id, platform: 'tiktok', field: 'firstComment' }],
      });
    });

    it('should set, show and use the posting queue', async () => {
      const set = await sps(['queue', 'set', '--timezone', 'Asia/Tokyo', '--slots', 'mon@09:00,thu@18:15'], env());
      expect(set.code).toBe(0);
      expect(JSON.parse(set.stdout)).toEqual({
        timezone: 'Asia/Tokyo',
        slots: [
          { day: 'mon', time: '09:00' },
          { day: 'thu', time: '18:15' },
        ],
      });
      const [shown, next] = await Promise.all([
        sps(['queue', 'get'], env()),
        sps(['queue', 'next', '--count', '3'], env()),
      ]);
      expect(JSON.parse(shown.stdout)).toEqual(JSON.parse(set.stdout));
      const slots = (JSON.parse(next.stdout) as { slots: string[] }).slots;
      expect(slots).toHaveLength(3);
      expect(slots.every((s) => /T(00:00|09:15):00\.000Z$/.test(s))).toBe(true);
    });

    it("should print an account's publishing caps", async () => {
      const li = await insertAccount(t, tenant, 'linkedin');
      const res = await sps(['accounts', 'limits', li.id], env());
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({
        accountId: li.id,
        platform: 'linkedin',
        limits: [{ name: 'posts_per_day', window: 'day_utc', used: 0, source: 'records' }],
      });
    });

    it('should exit non-zero with "code: message (requestId)" on an API error', async () => {
      const limited = await sps(['events', 'list'], {
        SPS_API_KEY: await keyWith(['profiles:read']),
        SPS_BASE_URL: t.url,
      });
      expect(limited.code).toBe(1);
      expect(limited.stdout).toBe('');
      expect(limited.stderr.trim()).toMatch(
        /^insufficient_permission: This API key lacks the 'audit:read' permission\. \(req_[\w-]+\)$/,
      );

      const retry = await sps(['posts', 'retry', randomUUID()], env());
      expect(retry.code).toBe(1);
      expect(retry.stderr.trim()).toMatch(/^[a-z_]+: .+ \(req_[\w-]+\)$/);
    });

    it('should refuse to run without an API key', async () => {
      const result = await sps(['profiles', 'list'], { SPS_BASE_URL: t.url });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^authentication_required: No API key/);
    });

    it('should honour --profile for an inaccessible profile', async () => {
      const result = await sps(['--profile', randomUUID(), 'profiles', 'get'], env());
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^profile_not_accessible: /);
    });
  });
});
