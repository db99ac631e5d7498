// npm run bench: an autocannon benchmark of the built service against a throwaway database.
//   1. builds when dist/ is missing (npm run build)
//   2. bootstraps a workspace (enterprise plan, a key without a practical rate limit) in a new
//      database, which the CLI creates and migrates
//   3. starts `node dist/src/main.js` (api role) on a free port, waits for /health
//   4. runs, each for BENCH_DURATION seconds (default 10) with BENCH_CONNECTIONS (default 20):
//        - GET /v1/profile                         (auth + rate limit + one read)
//        - POST /v1/profiles, a new Idempotency-Key per request (claim + transaction + outbox + store)
//        - POST /v1/profiles, one Idempotency-Key  (replays of a stored response)
//   5. prints a table, writes bench/results/<time>.json, stops the app, drops the database and
//      the Redis keys. Needs PostgreSQL and Redis (DATABASE_URL / REDIS_URL, local defaults).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import IORedis from 'ioredis';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const baseDb = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/social_publishing');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const id = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const dbName = `sps_bench_${id}`;
const dbUrl = new URL(baseDb);
dbUrl.pathname = `/${dbName}`;
const redisPrefix = `spsbench:${id}`;

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });

const env = (extra = {}) => ({
  ...process.env,
  NODE_ENV: 'development',
  DATABASE_URL: dbUrl.toString(),
  REDIS_URL: redisUrl,
  REDIS_PREFIX: redisPrefix,
  LOG_LEVEL: 'warn',
  ...extra,
});

function run(label, opts) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ connections, duration, ...opts }, (err, result) => (err ? reject(err) : resolve({ label, result })));
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

async function cleanup(server) {
  if (server && server.exitCode === null) {
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
  const admin = new URL(baseDb);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect().then(
    () => client.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`).finally(() => client.end()),
    () => undefined,
  );
  const redis = new IORedis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } catch {
    // best effort
  } finally {
    redis.disconnect();
  }
}

async function main() {
  if (!existsSync(join(root, 'dist/src/main.js'))) {
    console.log('Building (dist/ is missing)…');
    const b = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  console.log(`Throwaway database ${dbName}, Redis prefix ${redisPrefix}`);
  const boot = spawnSync(process.execPath, ['dist/src/cli/admin.js', 'bootstrap', '--workspace', 'Bench', '--plan', 'enterprise', '--rate-limit', '10000000', '--json'], { cwd: root, env: env(), encoding: 'utf8' });
  if (boot.status !== 0) throw new Error(`bootstrap failed: ${boot.stderr}`);
  const { apiKey } = JSON.parse(boot.stdout.trim());
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['dist/src/main.js'], { cwd: root, env: env({ PORT: String(port), PUBLIC_BASE_URL: url, PROCESS_ROLE: 'api', DB_MIGRATE_ON_START: 'false' }), stdio: ['ignore', 'ignore', 'inherit'] });
  const stop = async () => {
    await cleanup(server);
    process.exit(130);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const deadline = Date.now() + 60000;
    for (;;) {
      const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
      if (ok) break;
      if (server.exitCode !== null) throw new Error('the service exited during start-up');
      if (Date.now() > deadline) throw new Error('the service did not answer /health within 60 s');
      await new Promise((r) => setTimeout(r, 250));
    }
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ name: 'Bench profile' });
    const results = [];
    // Warm-up (JIT, connection pools), not measured.
    await new Promise((resolve, reject) => autocannon({ url: `${url}/v1/profile`, headers, connections, duration: 2 }, (err) => (err ? reject(err) : resolve())));
    console.log(`Running ${duration} s per scenario, ${connections} connections…`);
    results.push(await run('GET /v1/profile', { url: `${url}/v1/profile`, headers }));
    results.push(
      await run('POST /v1/profiles (new Idempotency-Key each)', {
        url: `${url}/v1/profiles`,
        method: 'POST',
        headers,
        body,
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }) }],
      }),
    );
    const once = await fetch(`${url}/v1/profiles`, { method: 'POST', headers: { ...headers, 'idempotency-key': 'bench-replay' }, body });
    if (once.status !== 201) throw new Error(`seed write failed: ${once.status}`);
    results.push(await run('POST /v1/profiles (replayed Idempotency-Key)', { url: `${url}/v1/profiles`, method: 'POST', headers: { ...headers, 'idempotency-key': 'bench-replay' }, body }));

    const rows = results.map(({ label, result: r }) => ({
      scenario: label,
      'req/s (avg)': Math.round(r.requests.average),
      'p50 ms': r.latency.p50,
      'p97.5 ms': r.latency.p97_5,
      'p99 ms': r.latency.p99,
      'max ms': r.latency.max,
      requests: r.requests.total,
      'non-2xx': r.non2xx,
      errors: r.errors + r.timeouts,
    }));
    console.table(rows);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    const file = join(root, 'bench/results', `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), node: process.version, duration, connections, rows }, null, 2));
    console.log(`Results written to ${file}`);
    if (rows.some((r) => r['non-2xx'] > 0 || r.errors > 0)) process.exitCode = 1;
  } finally {
    await cleanup(server);
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
