// What the benches share: a throwaway database and Redis prefix, the admin CLI's bootstrap, the
// service started on a free port (api role) and, at the end, the app stopped, the database
// dropped and the Redis keys deleted. Needs PostgreSQL and Redis (DATABASE_URL / REDIS_URL,
// local defaults).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import IORedis from 'ioredis';
import pg from 'pg';

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

export const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });

/** Writes bench/results/<prefix><time>.json and returns its path. */
export function writeResults(prefix, data) {
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  const file = join(root, 'bench/results', `${prefix}${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(data, null, 2));
  console.log(`Results written to ${file}`);
  return file;
}

async function stopProcess(server) {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  server.kill('SIGTERM');
  await new Promise((r) => {
    const timer = setTimeout(() => {
      server.kill('SIGKILL');
      r();
    }, 10000);
    server.on('exit', () => {
      clearTimeout(timer);
      r();
    });
  });
}

async function deleteRedisKeys(redisUrl, prefix) {
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } catch {
    // best effort
  } finally {
    redis.disconnect();
  }
}

/**
 * One throwaway service: `dbPrefix` names its database (or `dbName`, whole); `fromSource` runs
 * src/*.ts through @swc-node/register instead of the built dist/; `keepDb` leaves the database
 * (and the Redis keys) in place at cleanup.
 */
export function throwawayApp({ dbPrefix, dbName: fixedName, fromSource = false, keepDb = false }) {
  const baseDb = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/social_publishing');
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const id = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  const dbName = fixedName ?? `${dbPrefix}${id}`;
  const dbUrl = new URL(baseDb);
  dbUrl.pathname = `/${dbName}`;
  const redisPrefix = `spsbench:${id}`;
  const node = (entry) => (fromSource ? ['-r', '@swc-node/register', `src/${entry}.ts`] : [`dist/src/${entry}.js`]);
  let server;

  const env = (extra = {}) => ({
    ...process.env,
    NODE_ENV: 'development',
    ...(fromSource ? { SWC_NODE_PROJECT: 'tsconfig.json' } : {}),
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: redisUrl,
    REDIS_PREFIX: redisPrefix,
    LOG_LEVEL: 'warn',
    ...extra,
  });

  const bootstrapArgs = (workspace, plan) => [
    ...node('cli/admin'),
    'bootstrap',
    '--workspace',
    workspace,
    '--plan',
    plan,
    '--rate-limit',
    '10000000',
    '--json',
  ];

  /** Creates and migrates the database, a workspace (enterprise plan unless told) and a key without a practical rate limit. */
  function bootstrap(workspace, plan = 'enterprise') {
    const boot = spawnSync(process.execPath, bootstrapArgs(workspace, plan), {
      cwd: root,
      env: env(),
      encoding: 'utf8',
    });
    if (boot.status !== 0) throw new Error(`bootstrap failed: ${boot.stderr}`);
    return JSON.parse(boot.stdout.trim().split('\n').pop());
  }

  /** bootstrap() without blocking (several at once, once the database is migrated). */
  function bootstrapAsync(workspace, plan = 'enterprise') {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, bootstrapArgs(workspace, plan), { cwd: root, env: env() });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(`bootstrap failed: ${err}`)),
      );
    });
  }

  /** Starts the service (api role unless `extra` says otherwise) on a free port; returns its base URL. */
  async function start(extra = {}) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, node('main'), {
      cwd: root,
      env: env({
        PORT: String(port),
        PUBLIC_BASE_URL: url,
        PROCESS_ROLE: 'api',
        DB_MIGRATE_ON_START: 'false',
        ...extra,
      }),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return url;
  }

  async function waitForHealth(url, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ok = await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      if (server.exitCode !== null) throw new Error('the service exited during start-up');
      if (Date.now() > deadline) throw new Error(`the service did not answer /health within ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async function cleanup() {
    await stopProcess(server);
    if (keepDb) return console.log(`Kept the database ${dbName} (BENCH_KEEP_DB); drop it when done.`);
    const admin = new URL(baseDb);
    admin.pathname = '/postgres';
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect().then(
      () => client.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).finally(() => client.end()),
      () => undefined,
    );
    await deleteRedisKeys(redisUrl, redisPrefix);
  }

  /** On SIGINT/SIGTERM: `before()`, then cleanup, then exit 130. */
  function cleanupOnSignal(before = async () => undefined) {
    const stop = async () => {
      await before();
      await cleanup();
      process.exit(130);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }

  const pid = () => server?.pid;

  return {
    dbName,
    dbUrl,
    baseDb,
    redisUrl,
    redisPrefix,
    bootstrap,
    bootstrapAsync,
    start,
    pid,
    waitForHealth,
    cleanup,
    cleanupOnSignal,
  };
}
