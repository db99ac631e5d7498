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
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { root, throwawayApp, writeResults } from './lib/throwaway-app.mjs';

const duration = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20);
const app = throwawayApp({ dbPrefix: 'sps_bench_' });

function run(label, opts) {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ connections, duration, ...opts }, (err, result) =>
      err ? reject(err) : resolve({ label, result }),
    );
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false });
  });
}

async function main() {
  if (!existsSync(join(root, 'dist/src/main.js'))) {
    console.log('Building (dist/ is missing)…');
    const b = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('build failed');
  }
  console.log(`Throwaway database ${app.dbName}, Redis prefix ${app.redisPrefix}`);
  const { apiKey } = app.bootstrap('Bench');
  const url = await app.start();
  app.cleanupOnSignal();
  try {
    await app.waitForHealth(url, 60000);
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ name: 'Bench profile' });
    const results = [];
    // Warm-up (JIT, connection pools), not measured.
    await new Promise((resolve, reject) =>
      autocannon({ url: `${url}/v1/profile`, headers, connections, duration: 2 }, (err) =>
        err ? reject(err) : resolve(),
      ),
    );
    console.log(`Running ${duration} s per scenario, ${connections} connections…`);
    results.push(await run('GET /v1/profile', { url: `${url}/v1/profile`, headers }));
    results.push(
      await run('POST /v1/profiles (new Idempotency-Key each)', {
        url: `${url}/v1/profiles`,
        method: 'POST',
        headers,
        body,
        requests: [
          { setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }) },
        ],
      }),
    );
    const once = await fetch(`${url}/v1/profiles`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'bench-replay' },
      body,
    });
    if (once.status !== 201) throw new Error(`seed write failed: ${once.status}`);
    results.push(
      await run('POST /v1/profiles (replayed Idempotency-Key)', {
        url: `${url}/v1/profiles`,
        method: 'POST',
        headers: { ...headers, 'idempotency-key': 'bench-replay' },
        body,
      }),
    );

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
    writeResults('', { at: new Date().toISOString(), node: process.version, duration, connections, rows });
    if (rows.some((r) => r['non-2xx'] > 0 || r.errors > 0)) process.exitCode = 1;
  } finally {
    await app.cleanup();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
