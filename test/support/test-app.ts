import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import IORedis from 'ioredis';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp } from '@/bootstrap/create-app';
import { AppConfig, loadConfig } from '@/config/config';
import { bootstrapWorkspace, BootstrapInput, BootstrapResult } from '@/modules/workspaces/bootstrap-workspace';
import { type Contract, loadContract, withContract } from './contract';
import { createFileDatabase } from './db';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  url: string;
  ds: DataSource;
  databaseUrl: string;
  redisPrefix: string;
  http: () => ReturnType<typeof request>;
  close: () => Promise<void>;
}

export interface TestAppOptions {
  /** Share another instance's database and Redis prefix (two API processes, one store). */
  shareWith?: TestApp;
  /** Environment overrides (a DATABASE_URL here replaces the cloned database). */
  env?: Record<string, string>;
}

/**
 * Boots the real AppModule on a random port against real Postgres (a database of its own,
 * cloned from the run's migrated template) and real Redis (a key prefix of its own).
 */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const databaseUrl = opts.shareWith?.databaseUrl ?? opts.env?.DATABASE_URL ?? (await createFileDatabase()).url;
  const redisPrefix = opts.shareWith?.redisPrefix ?? `spst:${randomBytes(5).toString('hex')}`;
  // The port is in the config (PUBLIC_BASE_URL, links), so it is chosen before the app exists: a
  // port the OS just handed out, and another one should something take it in the meantime.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const config = loadConfig(process.env, {
      DATABASE_URL: databaseUrl,
      REDIS_PREFIX: redisPrefix,
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      DB_MIGRATE_ON_START: 'false',
      ...opts.env,
    });
    const app = await createApp(config);
    try {
      await app.listen(port, '127.0.0.1');
    } catch (err) {
      await app.close().catch(() => undefined);
      if ((err as { code?: string }).code === 'EADDRINUSE' && attempt < 5) continue;
      throw err;
    }
    // Every response through t.http() is checked against the app's own /openapi.json.
    const contract = await loadContract(`http://127.0.0.1:${port}`).catch(() => undefined);
    return testApp(app, config, port, databaseUrl, redisPrefix, opts, contract);
  }
}

/** A port nobody listens on now (the OS's pick of port 0, released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function testApp(
  app: NestExpressApplication,
  config: AppConfig,
  port: number,
  databaseUrl: string,
  redisPrefix: string,
  opts: TestAppOptions,
  contract?: Contract,
): TestApp {
  const url = `http://127.0.0.1:${port}`;
  const ds = app.get(DataSource);
  return {
    app,
    config,
    url,
    ds,
    databaseUrl,
    redisPrefix,
    http: () => (contract ? withContract(request(url), contract) : request(url)),
    close: async () => {
      await app.close();
      // The instance that made the Redis prefix removes its keys (queues, schedulers, windows).
      if (!opts.shareWith) await dropRedisPrefix(config.redisUrl, redisPrefix).catch(() => undefined);
    },
  };
}

export interface Tenant extends BootstrapResult {
  auth: { Authorization: string };
}

async function dropRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

let tenantCounter = 0;

/** A workspace of its own for a test (owner user, profile, key with every permission, high rate limit). */
export async function createTenant(t: TestApp, input: Partial<BootstrapInput> = {}): Promise<Tenant> {
  tenantCounter += 1;
  const r = await bootstrapWorkspace(t.ds, {
    workspaceName: `Test workspace ${tenantCounter}`,
    email: `owner${tenantCounter}-${randomBytes(3).toString('hex')}@example.com`,
    plan: 'pro',
    rateLimitPerMinute: 100000,
    rateLimitPerHour: 1000000,
    ...input,
  });
  return { ...r, auth: { Authorization: `Bearer ${r.apiKey}` } };
}

/** An API-role app (its workers off) with one tenant: the usual setup of an e2e file. */
export async function createApiApp(opts: TestAppOptions = {}): Promise<{ t: TestApp; tenant: Tenant }> {
  const t = await createTestApp({ ...opts, env: { PROCESS_ROLE: 'api', ...opts.env } });
  return { t, tenant: await createTenant(t) };
}

/**
 * Polls until `fn` returns a truthy value (for asynchronous outcomes: workers, webhooks). The
 * default wait is long: on a loaded CI machine a worker or webhook outcome can take many seconds.
 */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  { timeoutMs = 45_000, intervalMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `Condition not met within ${timeoutMs} ms${last ? `: ${last instanceof Error ? String(last) : JSON.stringify(last)}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * `promise`, or a failure naming `what` once `timeoutMs` passed without it: a wait on a signal
 * (a held request, a spied call) that fails with a clear message instead of hanging.
 */
export async function bounded<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * For a test whose outcome depends on which side of a UTC time of day (`hh:mm`) it runs (daily caps
 * and their resetsAt, "today" read twice, a queue's next slot): when that time is less than
 * `marginMs` away, waits until it has passed, so the test runs on one side of it (unless it takes
 * longer than `marginMs`). A wait on the clock itself, at most `marginMs`, and only in the minutes
 * before that time.
 */
export async function clearOfUtcTime(hhmm: string, marginMs = 120_000): Promise<void> {
  const [hours, minutes] = hhmm.split(':').map(Number);
  const at = new Date();
  at.setUTCHours(hours, minutes, 0, 0);
  if (at.getTime() < Date.now()) at.setUTCDate(at.getUTCDate() + 1);
  if (at.getTime() - Date.now() >= marginMs) return;
  while (Date.now() < at.getTime() + 10) {
    await new Promise((r) => setTimeout(r, Math.max(10, at.getTime() + 10 - Date.now())));
  }
}

/** clearOfUtcTime at midnight: the test runs within one UTC day. */
export function clearOfUtcMidnight(marginMs = 120_000): Promise<void> {
  return clearOfUtcTime('00:00', marginMs);
}
