import { spawn } from 'node:child_process';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { AuthCache, AuthChange } from '@/common/auth/auth-cache';
import { eventually, type TestApp, type Tenant } from './test-app';

export const ROOT = join(__dirname, '..', '..');

/** What a supertest response says about its request (for failure messages). */
function describeRequest(res: Response): string {
  const req = (res as unknown as { req?: { method?: string; path?: string } }).req;
  return `${req?.method ?? ''} ${req?.path ?? ''}`;
}

/**
 * Asserts the spec's error envelope: status, code, message (also top level), docsUrl anchored
 * at the code, requestId equal to the X-Request-Id header. Returns `error` for further checks.
 */
export function expectError(
  res: Response,
  status: number,
  code: string,
): { code: string; message: string; docsUrl: string; requestId: string; details?: Record<string, unknown> } {
  const context = `${describeRequest(res)} → ${res.status} ${JSON.stringify(res.body)}`;
  if (res.status !== status || res.body?.error?.code !== code)
    throw new Error(`expected ${status} ${code}, got ${context}`);
  const error = res.body.error;
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(res.body.message).toBe(error.message);
  expect(error.docsUrl).toMatch(new RegExp(`/errors#${code}$`));
  expect(res.headers['x-request-id']).toBeTruthy();
  expect(error.requestId).toBe(res.headers['x-request-id']);
  return error;
}

/** A JSON body cut short: what no JSON parser reads. */
export const MALFORMED_JSON = '{"name": ';

/**
 * POST `path` with `headers` and a body declared JSON that does not parse: the request, to await
 * (or `.expect(…)`) like any other.
 */
export function postMalformedJson(t: TestApp, path: string, headers: Record<string, string> = {}) {
  return t.http().post(path).set(headers).set('Content-Type', 'application/json').send(MALFORMED_JSON);
}

/** Asserts the spec's answer to a body that does not parse: 400 invalid_request naming the body as JSON. */
export function expectMalformedJson(res: Response): ReturnType<typeof expectError> {
  const error = expectError(res, 400, 'invalid_request');
  expect(error.message).toMatch(/JSON/);
  expect(error.details).toEqual({ field: 'body' });
  return error;
}

/** Asserts the four RateLimit headers are present and well-formed; returns them as numbers. */
export function rateHeaders(res: Response): {
  limit: number;
  remaining: number;
  reset: number;
  policy: string;
  window: number;
} {
  const policy = String(res.headers['ratelimit-policy'] ?? '');
  const m = /^(\d+);w=(\d+)$/.exec(policy);
  if (!m)
    throw new Error(`RateLimit-Policy missing or malformed on ${describeRequest(res)} (${res.status}): '${policy}'`);
  const limit = Number(res.headers['ratelimit-limit']);
  const remaining = Number(res.headers['ratelimit-remaining']);
  const reset = Number(res.headers['ratelimit-reset']);
  expect(Number.isInteger(limit) && Number.isInteger(remaining) && Number.isInteger(reset)).toBe(true);
  expect(Number(m[1])).toBe(limit);
  return { limit, remaining, reset, policy, window: Number(m[2]) };
}

/** A plain Postgres connection to the test app's database (to hold locks, inspect rows, break things). */
export async function pgClient(t: TestApp): Promise<Client> {
  const client = new Client({ connectionString: t.databaseUrl });
  await client.connect();
  return client;
}

/**
 * Waits until a statement matching `statement` waits for a lock held by the connection `holder` (a
 * pg Client or a TypeORM query runner; pg_blocking_pids): the moment to let go, to see what the waiting statement does next.
 */
export async function waitUntilBlocked(
  t: TestApp,
  holder: { query(text: string): Promise<unknown> },
  statement: RegExp,
): Promise<void> {
  // A pg Client answers { rows }, a TypeORM query runner the rows.
  const answer = (await holder.query('SELECT pg_backend_pid() AS pid')) as
    { pid: number }[] | { rows: { pid: number }[] };
  const [{ pid }] = Array.isArray(answer) ? answer : answer.rows;
  await eventually(
    async () =>
      (
        await t.ds.query<{ query: string }[]>(
          'SELECT query FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))',
          [pid],
        )
      ).some((w) => statement.test(w.query)),
    { intervalMs: 20 },
  );
}

export async function sql<T = Record<string, unknown>>(t: TestApp, text: string, params: unknown[] = []): Promise<T[]> {
  return await t.ds.query<T[]>(text, params);
}

/** Forgets a key's rate-limit windows (to prove that something was, or was not, counted or stored). */
export async function resetRateLimit(t: TestApp, keyId: string): Promise<void> {
  const redis = new IORedis(t.config.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const keys = await redis.keys(`${t.redisPrefix}:rl:key:${keyId}:*`);
    if (keys.length) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

export interface CreatedKey {
  id: string;
  secret: string;
  auth: { Authorization: string };
  body: Record<string, unknown>;
}

/**
 * Another key of the tenant's workspace, made through the API with the tenant's all-powerful first
 * key (whose rate limits it takes unless `body` sets its own); `owner: null` strips its owner.
 */
export async function createKey(
  t: TestApp,
  tenant: Tenant,
  body: Record<string, unknown> = {},
  o: { owner?: string | null } = {},
): Promise<CreatedKey> {
  const res = await t
    .http()
    .post('/v1/api-keys')
    .set(tenant.auth)
    .send({ name: 'test key', ...body });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  const id = (res.body as { apiKey: { id: string } }).apiKey.id;
  if (o.owner !== undefined) await t.ds.query('UPDATE api_keys SET owner_user_id = $2 WHERE id = $1', [id, o.owner]);
  return {
    id,
    secret: res.body.secret,
    auth: { Authorization: `Bearer ${res.body.secret}` },
    body: res.body,
  };
}

/**
 * After a key, workspace or profile row is edited directly (as an operator would): announces the
 * change as the admin CLI does, so every instance drops its cached keys (AuthCache). When it
 * returns, `t` has dropped its cache (at once, before publishing); another instance drops its own
 * when the message reaches it, later: a test that needs that waits on the other instance's answers
 * (auth-cache.e2e-spec's untilRefused), never on a pause here. (No caller needs it: every test that
 * edits a row then reads through `t`, or through an instance that never resolved the key before.)
 */
export async function authChanged(t: TestApp, what: AuthChange = '*'): Promise<void> {
  await t.app.get(AuthCache).changed(what);
}

/** Sets the per-minute and per-hour ceilings of a key directly (what the operator CLI does). */
export async function setKeyLimits(
  t: TestApp,
  keyId: string,
  perMinute: number | null,
  perHour: number | null,
): Promise<void> {
  await t.ds.query('UPDATE api_keys SET rate_limit_per_minute = $2, rate_limit_per_hour = $3 WHERE id = $1', [
    keyId,
    perMinute,
    perHour,
  ]);
  await authChanged(t, `key:${keyId}`);
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point of the service in a child process (no build needed). */
export function runTs(
  entry: string,
  args: string[],
  env: Record<string, string | undefined>,
  timeoutMs = 60000,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', '@swc-node/register', entry, ...args], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs an operator CLI command in this process (`buildProgram()` of src/cli/admin.ts): the same
 * commands as `npm run admin -- …`, without a child process per call. Exit code 1 on any error,
 * like the entry point.
 */
export async function runAdminInProcess(
  args: string[],
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<RunResult> {
  const { buildProgram } = await import('@/cli/admin');
  const saved = process.env.DATABASE_URL;
  const savedEnv = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let stdout = '';
  let stderr = '';
  const log = jest.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (stdout += `${a.join(' ')}\n`));
  process.env.DATABASE_URL = databaseUrl;
  try {
    const program = buildProgram();
    program.exitOverride();
    program.configureOutput({ writeOut: (s) => void (stdout += s), writeErr: (s) => void (stderr += s) });
    for (const cmd of program.commands) {
      cmd.exitOverride();
      cmd.configureOutput({ writeOut: (s) => void (stdout += s), writeErr: (s) => void (stderr += s) });
    }
    await program.parseAsync(['node', 'admin', ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!stderr.includes(message)) stderr += `${message}\n`;
    return { code: 1, stdout, stderr };
  } finally {
    log.mockRestore();
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
