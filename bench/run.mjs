// npm run bench [-- --quick]: every scenario of the service against a bare same-work baseline,
// interleaved (baseline, candidate, baseline, candidate, … PAIRS pairs), in one run, on one machine.
// Absolute numbers depend on the machine and on what else runs on it; the ratio of each pair does
// much less, so each scenario's ratio is the median of its pairs' ratios and only ratios are
// checked against the targets (issue 14). `--quick` (CI) runs a smaller set for fewer seconds and
// exits 1 when a ratio falls below its target; never on an absolute time.
//
// Processes (each its own, so nobody's CPU is counted as someone else's):
//   - the service (src through @swc-node/register, PROCESS_ROLE=all), adapters in sandbox mode
//     pointed at the fake network (SANDBOX_NETWORK_URL);
//   - bench/lib/fake-network.mjs: the network (answers after 50 ms) and the webhook receivers;
//   - bench/lib/bare-server.mjs: node:http + pg + ioredis doing each HTTP scenario's work;
//   - bench/lib/bare-worker.mjs: BullMQ + pg + fetch/undici doing the pipeline scenarios' work;
//   - this one: autocannon (HTTP load), seeding, timing, the table;
//   - full bench only, last: the scheduling burst (100,000 posts due at once, on the service above)
//     and the scale-out (the service above stopped; 1 api + 1 worker, then 2 + 2, started afresh).
// Writes bench/results/latest.json (and a timestamped copy). Needs PostgreSQL and Redis.
import { spawn } from 'node:child_process';
import { createCipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Queue } from 'bullmq';
import pg from 'pg';
import { freePort, root, throwawayApp, writeResults } from './lib/throwaway-app.mjs';

const quick = process.argv.includes('--quick');
// --gate=floor (CI): exit 1 only when a ratio falls below its regression floor (FLOORS, about half
// of the last measured ratio), so CI catches a regression without failing on a target that is
// still open; the table always shows the issue's targets. Without it, the targets are the gate.
const gate = (process.argv.find((a) => a.startsWith('--gate=')) ?? '--gate=target').split('=')[1];
const arg = (name, fallback) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? Number(hit.split('=')[1]) : fallback;
};
// --only=<regexp>: just the scenarios whose name matches (while working on one of them).
const only = new RegExp(process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length) ?? '', 'i');
const C = {
  // Seconds per HTTP run: 5 in the full bench (10 gave the same ratios within the pairs' spread
  // and made the run too long for its 15 minutes); 1 in --quick, to stay under its 2 minutes.
  duration: arg('duration', Number(process.env.BENCH_DURATION ?? (quick ? 1 : 5))),
  pairs: arg('pairs', 3),
  /** Requests per publishNow run (a fixed number, so the backlog drained after it stays bounded). */
  publishNowRequests: arg('publish-now-requests', quick ? 50 : 250),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  listPosts: quick ? [10_000] : [10_000, 1_000_000],
  // The issue names 1,000 posts; 500 (3 pairs) keep the full bench within its 15 minutes with the
  // same ratio (a run takes 15–30 s on each side); --pipeline-posts=1000 for the issue's size.
  pipelinePosts: arg('pipeline-posts', quick ? 40 : 500),
  subscriptions: arg('subscriptions', quick ? 200 : 1000),
  /** How long the hanging receivers hold an attempt. */
  hangMs: quick ? 1000 : 3000,
  /** Scheduling (full bench only): posts due in the same minute. */
  schedulePosts: arg('schedule-posts', quick ? 0 : 100_000),
  /**
   * Scale-out (full bench only): posts × 3 targets created through the api processes and timed,
   * after an untimed warm-up batch of scaleWarmup posts in the same freshly started processes.
   */
  scalePosts: arg('scale-posts', quick ? 0 : 500),
  scaleWarmup: arg('scale-warmup', 100),
};
const TOKEN_KEY = Buffer.alloc(32, 9);
const listName = (n) => `GET /v1/posts?limit=20 (${n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`} posts)`;
const TARGETS = {
  'GET /v1/profile': { ratio: 0.6, p99x: 2 },
  'POST /v1/posts draft, 1 target': { ratio: 0.4 },
  'POST /v1/posts draft, 3 targets': { ratio: 0.4 },
  'POST /v1/posts publishNow, 1 target': { ratio: 0.4 },
  'POST /v1/posts publishNow, 3 targets': { ratio: 0.4 },
  'GET /v1/posts?limit=20 (10k posts)': { ratio: 0.5 },
  'GET /v1/posts?limit=20 (1M posts)': { ratio: 0.5 },
  'Publishing pipeline (posts × 3 targets)': { ratio: 0.4 },
  'Webhook fan-out (1 event)': { ratio: 0.4, p99ms: 1000 },
  // An absolute target, not a ratio (issue 14): every post queued within 2 minutes of its time.
  'Scheduling (posts due in one minute)': { seconds: 120 },
  'Scale-out pipeline (2 api + 2 worker vs 1 + 1)': { ratio: 1.6 },
};

/**
 * Round trips per request (Postgres queries, BEGIN/COMMIT included; Redis commands, a pipeline
 * counting once), counted inside the service (bench/lib/count-round-trips.cjs) over sequential
 * requests, with the idle background (pollers, blocked workers) subtracted. Both gates fail when a
 * count is above its limit: what the service does now, so a change that adds one is caught.
 */
const ROUND_TRIPS = {
  'GET /v1/profile': { pg: 1, redis: 1 },
  'GET /v1/posts?limit=20 (10k posts)': { pg: 3, redis: 1 },
  // The post's read and its one insert statement (no transaction since a16c182) and, in the same
  // process, the outbox relay handling its event (3.7 measured with the relay's share, which varies
  // with timing; 7.9 and 9.0 with the creation's transaction, 12.9 and 14.8 before its folded
  // statements). The limit leaves room for the relay's share under load.
  'POST /v1/posts draft, 1 target': { pg: 6, redis: 3 },
  'POST /v1/posts draft, 3 targets': { pg: 6, redis: 3 },
};
/** Background noise allowed on top of a round-trip limit (a poller's query landing in the window). */
const ROUND_TRIP_SLACK = 0.3;

/**
 * Regression floors for --gate=floor: about 60% of the ratios of a --quick run on the loaded
 * development machine (2026-11-24 16:24 UTC, load average 12–14), whose pairs vary by up to ±0.3;
 * raised from the first floors as the service got faster (issue 14).
 */
const FLOORS = {
  'GET /v1/profile': 0.15,
  'POST /v1/posts draft, 1 target': 0.12,
  'POST /v1/posts draft, 3 targets': 0.15,
  'POST /v1/posts publishNow, 1 target': 0.15,
  'POST /v1/posts publishNow, 3 targets': 0.2,
  'GET /v1/posts?limit=20 (10k posts)': 0.25,
  'GET /v1/posts?limit=20 (1M posts)': 0.2,
  'Publishing pipeline (posts × 3 targets)': 0.25,
  'Webhook fan-out (1 event)': 0.1,
};

const app = throwawayApp({ dbPrefix: 'sps_bench_', fromSource: true });
const benchStarted = performance.now();
/** Seconds each phase took (setup, then each scenario), in bench/results/*.json. */
const timings = {};
let lapFrom = benchStarted;
const lap = (name) => {
  const now = performance.now();
  timings[name] = round((now - lapFrom) / 1000);
  lapFrom = now;
};

/**
 * A scenario that fails (a process that would not start, a timeout) still leaves its row, marked
 * as failed with the reason, and the other scenarios' rows are written.
 */
async function guarded(name, fn) {
  try {
    return await fn();
  } catch (err) {
    console.log(`\n${name} failed: ${err instanceof Error ? err.message : err}`);
    const none = { throughput: null, p50: null, p99: null, rssMb: null };
    return {
      name,
      unit: '',
      pairs: [],
      baseline: none,
      candidate: none,
      ratio: null,
      target: `failed: ${err instanceof Error ? err.message : err}`,
      ok: false,
      errors: 1,
    };
  }
}
const children = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const round = (n, d = 0) => (Number.isFinite(n) ? Math.round(n * 10 ** d) / 10 ** d : null);

function seal(plaintext) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', TOKEN_KEY, iv);
  cipher.setAAD(Buffer.from('k1'));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['k1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join(
    ':',
  );
}

/** Starts `node <file>` and resolves with the port it prints ("ready <port>") and its pid. */
function startChild(file, env, args = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, file), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /ready ?(\d*)/.exec(out);
      if (m) resolve({ pid: child.pid, port: Number(m[1]) || null });
    });
    child.on('exit', (code) => reject(new Error(`${file} exited (${code})`)));
  });
}

/** Peak resident memory (MB) of a process while `fn` runs, sampled every 200 ms. */
async function withPeakRss(pid, fn) {
  let peak = 0;
  const sample = () => {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) / 1024);
    } catch {
      // gone
    }
  };
  sample();
  const timer = setInterval(sample, 200);
  try {
    const result = await fn();
    sample();
    return { ...result, rssMb: peak };
  } finally {
    clearInterval(timer);
  }
}

/** autocannon's result, plus `lastResponseAt` (performance.now() of the last response). */
function cannon(opts) {
  return new Promise((resolve, reject) => {
    let lastResponseAt = 0;
    const instance = autocannon({ connections: C.connections, duration: C.duration, ...opts }, (err, r) =>
      err ? reject(err) : resolve({ ...r, lastResponseAt }),
    );
    instance.on('response', () => (lastResponseAt = performance.now()));
  });
}

async function httpRun(base, s, headers) {
  const started = performance.now();
  const r = await cannon({
    url: `${base}${s.path}`,
    method: s.method ?? 'GET',
    headers,
    body: s.body,
    ...(s.amount ? { amount: s.amount } : {}),
  });
  return {
    // A run of a fixed number of requests may last under a second: its rate is total ÷ duration.
    // (first request to last response: autocannon ends such a run on its next whole second).
    throughput: s.amount ? (r.requests.total * 1000) / (r.lastResponseAt - started) : r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.non2xx + r.errors + r.timeouts,
  };
}

async function main() {
  console.log(`${quick ? 'Quick' : 'Full'} bench: ${JSON.stringify(C)}; database ${app.dbName}`);
  const fake = await startChild('bench/lib/fake-network.mjs', { HANG_MS: String(C.hangMs) }, ['0']);
  const fakeUrl = `http://127.0.0.1:${fake.port}`;
  // The largest list's profile (1M posts, two minutes to seed) comes with the database, copied
  // from a template seeded once per schema (listSeedTemplate); the other workspaces are created
  // together once the database is migrated.
  const bigList = C.listPosts.find((n) => n >= SEED_TEMPLATE_MIN && only.test(listName(n)));
  const seeded = bigList ? await databaseFromSeedTemplate(bigList) : null;
  const main = app.bootstrap('Bench', 'pro');
  // One workspace (enterprise) per list size, so each list scenario reads its own profile.
  const [lists, scheduling, scaling] = await Promise.all([
    Promise.all(
      C.listPosts.map(async (n) =>
        n === bigList && seeded ? { n, ...seeded } : { n, ...(await app.bootstrapAsync(`Bench list ${n}`)) },
      ),
    ),
    C.schedulePosts > 0 && only.test('Scheduling (posts due in one minute)')
      ? app.bootstrapAsync('Bench schedule')
      : null,
    C.scalePosts > 0 && only.test('Scale-out pipeline (2 api + 2 worker vs 1 + 1)')
      ? app.bootstrapAsync('Bench scale')
      : null,
  ]);
  const db = new pg.Client({ connectionString: app.dbUrl.toString() });
  await db.connect();
  app.cleanupOnSignal(async () => {
    for (const c of children) c.kill('SIGTERM');
    await db.end().catch(() => undefined);
  });
  const bullPrefix = `${app.redisPrefix}:bull`;
  const bareBull = `${app.redisPrefix}:barebull`;
  const queues = [];
  try {
    // The load's key: no practical rate limit, and a daily cap (checked, never reached).
    await db.query(
      `UPDATE api_keys SET rate_limit_per_minute = 1000000000, rate_limit_per_hour = 1000000000, max_posts_per_day = 100000000`,
    );
    const accounts = await insertAccounts(db, main, 3, 'page');
    for (const l of lists) if (only.test(listName(l.n))) await seedPosts(db, l, l.n);
    lap('setup');

    const serviceEnv = {
      PROCESS_ROLE: 'all',
      NODE_ENV: 'development',
      SANDBOX_PLATFORMS: 'true',
      SANDBOX_NETWORK_URL: fakeUrl,
      TOKEN_ENCRYPTION_KEY: TOKEN_KEY.toString('base64'),
      TOKEN_ENCRYPTION_KEY_ID: 'k1',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '600000,600000,600000,600000,600000,600000',
      // The bench's fan-out is one workspace's; the baseline sends with 50 in flight, so the service
      // gets the same share (the default 10 is a fairness cap between tenants, not a speed limit).
      WEBHOOK_CONCURRENCY_PER_WORKSPACE: '50',
      // The default level: a production process logs each request (to /dev/null here).
      LOG_LEVEL: process.env.XLOG ?? 'info',
    };
    const countPort = await freePort();
    const url = await app.start({
      ...serviceEnv,
      NODE_OPTIONS:
        `${process.env.NODE_OPTIONS ?? ''} --require ${join(root, 'bench/lib/count-round-trips.cjs')}`.trim(),
      ROUND_TRIPS_PORT: String(countPort),
    });
    const bare = await startChild('bench/lib/bare-server.mjs', {
      DATABASE_URL: app.dbUrl.toString(),
      REDIS_URL: app.redisUrl,
      REDIS_PREFIX: app.redisPrefix,
      PORT: '0',
    });
    const worker = await startChild('bench/lib/bare-worker.mjs', {
      DATABASE_URL: app.dbUrl.toString(),
      REDIS_URL: app.redisUrl,
      BULL_PREFIX: bareBull,
      NETWORK_URL: `${fakeUrl}/sandbox/facebook/v23.0`,
      TOKEN_KEY: TOKEN_KEY.toString('base64'),
    });
    await app.waitForHealth(url, 120_000);
    const bareUrl = `http://127.0.0.1:${bare.port}`;
    const sides = {
      baseline: { url: bareUrl, pid: bare.pid },
      candidate: { url, pid: app.pid() },
    };
    const auth = (k) => ({ authorization: `Bearer ${k}`, 'content-type': 'application/json' });
    const http = [
      { name: 'GET /v1/profile', path: '/v1/profile', key: main.apiKey },
      {
        name: 'POST /v1/posts draft, 1 target',
        path: '/v1/posts',
        method: 'POST',
        key: main.apiKey,
        body: JSON.stringify({ content: 'Bench draft', accountIds: accounts.slice(0, 1) }),
      },
      {
        name: 'POST /v1/posts draft, 3 targets',
        path: '/v1/posts',
        method: 'POST',
        key: main.apiKey,
        body: JSON.stringify({ content: 'Bench draft', accountIds: accounts }),
      },
      ...lists.map((l) => ({
        name: listName(l.n),
        path: '/v1/posts?limit=20',
        key: l.apiKey,
      })),
    ];
    // publishNow creations leave the worker a backlog (drained after each service run, not timed):
    // --quick sends a fixed number of requests so the drains stay short.
    for (const n of [1, 3])
      http.push({
        name: `POST /v1/posts publishNow, ${n} target${n > 1 ? 's' : ''}`,
        path: '/v1/posts',
        method: 'POST',
        key: main.apiKey,
        body: JSON.stringify({ content: 'Bench now', accountIds: accounts.slice(0, n), publishNow: true }),
        drain: true,
        amount: C.publishNowRequests,
      });

    // Warm-up of both sides (JIT, pools), not measured.
    for (const side of Object.values(sides))
      await cannon({ url: `${side.url}/v1/profile`, headers: auth(main.apiKey), duration: quick ? 1 : 2 });

    const results = [];
    const roundTrips = [];
    const resetUsage = async () => {
      // Each run starts from the same state: the pro plan's monthly quota must not run out.
      // Requests cut at the end of a run may still be committing: let them, retry on a deadlock.
      await sleep(300);
      for (let attempt = 1; ; attempt++) {
        try {
          await db.query(`DELETE FROM posts WHERE workspace_id = $1`, [main.workspaceId]);
          await db.query(`DELETE FROM events WHERE workspace_id = $1`, [main.workspaceId]);
          return;
        } catch (err) {
          if (attempt >= 5) throw err;
          await sleep(500);
        }
      }
    };
    for (const s of http.filter((h) => only.test(h.name) && ROUND_TRIPS[h.name])) {
      if (s.method === 'POST') await resetUsage();
      const counted = await countRoundTrips(`http://127.0.0.1:${countPort}`, url, s, auth(s.key));
      if (s.drain) await drain(db, main.workspaceId);
      const limit = ROUND_TRIPS[s.name];
      const ok = counted.pg <= limit.pg + ROUND_TRIP_SLACK && counted.redis <= limit.redis + ROUND_TRIP_SLACK;
      roundTrips.push({ scenario: s.name, pg: round(counted.pg, 2), redis: round(counted.redis, 2), limit, ok });
      console.log(`${s.name}: ${round(counted.pg, 2)} Postgres + ${round(counted.redis, 2)} Redis round trips`);
    }
    for (const s of http.filter((h) => only.test(h.name))) {
      process.stdout.write(`${s.name}: `);
      const pairs = [];
      for (let i = 0; i < C.pairs; i++) {
        const pair = {};
        for (const side of ['baseline', 'candidate']) {
          if (s.method === 'POST') await resetUsage();
          pair[side] = await withPeakRss(sides[side].pid, () => httpRun(sides[side].url, s, auth(s.key)));
          if (s.drain && side === 'candidate') await drain(db, main.workspaceId);
          process.stdout.write(`${side[0]}${round(pair[side].throughput)} `);
        }
        pairs.push(pair);
      }
      process.stdout.write('\n');
      results.push(summarise(s.name, 'req/s', pairs));
      lap(s.name);
    }
    // The list's second target (issue 14): its p99 at 1M posts within 1.5× of its p99 at 10k.
    const smallList = results.find((r) => r.name === listName(10_000));
    const bigListRow = results.find((r) => r.name === listName(1_000_000));
    if (smallList && bigListRow) {
      const x = bigListRow.candidate.p99 / Math.max(1, smallList.candidate.p99);
      bigListRow.p99VsSmallList = x;
      bigListRow.target += `, p99 ≤ 1.5× the 10k list's (${round(x, 2)}×)`;
      bigListRow.ok &&= x <= 1.5;
    }
    await resetUsage();

    // Publishing pipeline: N posts × 3 targets queued at one instant; from then until all final.
    if (only.test('Publishing pipeline (posts × 3 targets)')) {
      const name = 'Publishing pipeline (posts × 3 targets)';
      process.stdout.write(`${name}: `);
      const serviceQ = new Queue('publish', { connection: bullConnection(app.redisUrl), prefix: bullPrefix });
      const bareQ = new Queue('bare-publish', { connection: bullConnection(app.redisUrl), prefix: bareBull });
      queues.push(serviceQ, bareQ);
      const pairs = [];
      for (let i = 0; i < C.pairs; i++) {
        const pair = {};
        for (const side of ['baseline', 'candidate']) {
          await resetUsage();
          const ids = await insertQueuedPosts(db, main, accounts, C.pipelinePosts);
          const q = side === 'baseline' ? bareQ : serviceQ;
          const pid = side === 'baseline' ? worker.pid : app.pid();
          pair[side] = await withPeakRss(pid, async () => {
            const t0 = Date.now();
            await q.addBulk(
              ids.map((postId) => ({
                name: side === 'baseline' ? 'publish' : 'publish-post',
                data: { postId },
                opts: { removeOnComplete: true, removeOnFail: 100 },
              })),
            );
            return waitPublished(db, ids, t0);
          });
          process.stdout.write(`${side[0]}${round(pair[side].throughput, 1)} `);
        }
        pairs.push(pair);
      }
      process.stdout.write('\n');
      results.push(summarise(name, 'posts/s', pairs));
      lap(name);
    }
    await resetUsage();

    // Webhook fan-out: one event to N subscriptions (5% answering 500, 5% hanging C.hangMs).
    if (only.test('Webhook fan-out (1 event)')) {
      const name = 'Webhook fan-out (1 event)';
      process.stdout.write(`${name}: `);
      const bareQ = new Queue('bare-dispatch', { connection: bullConnection(app.redisUrl), prefix: bareBull });
      queues.push(bareQ);
      await drainOutbox(db);
      await db.query(
        `INSERT INTO webhook_subscriptions (workspace_id, profile_id, url, events, secret_enc)
         SELECT $1, $2, $3 || '/hooks/' || g, ARRAY['*'], $4 FROM generate_series(1, $5) g`,
        [
          main.workspaceId,
          main.profileId,
          fakeUrl,
          seal(`whsec_${randomBytes(32).toString('base64url')}`),
          C.subscriptions,
        ],
      );
      await sleep(20); // created_at strictly before the events below
      const pairs = [];
      const stages = [];
      for (let i = 0; i < C.pairs; i++) {
        const pair = {};
        for (const side of ['baseline', 'candidate']) {
          await fetch(`${fakeUrl}/reset`, { method: 'POST' });
          const pid = side === 'baseline' ? worker.pid : app.pid();
          pair[side] = await withPeakRss(pid, async () => {
            const t0 = Date.now();
            if (side === 'baseline') {
              const { rows } = await db.query(
                `INSERT INTO events (workspace_id, profile_id, type, actor, data, dispatched_at, handled_at)
                 VALUES ($1, $2, 'post.created', '{"type":"system"}', '{"bench":true}', now(), now()) RETURNING id`,
                [main.workspaceId, main.profileId],
              );
              await bareQ.add('dispatch', { eventId: rows[0].id }, { removeOnComplete: true });
            } else {
              const res = await fetch(`${url}/v1/posts`, {
                method: 'POST',
                headers: auth(main.apiKey),
                body: JSON.stringify({ content: `Bench hook ${i}`, accountIds: accounts.slice(0, 1) }),
              });
              if (res.status !== 201) throw new Error(`POST /v1/posts answered ${res.status}`);
            }
            const r = await waitDeliveries(fakeUrl, C.subscriptions, t0);
            return side === 'candidate' ? { ...r, stages: await fanOutStages(db, main.workspaceId, t0) } : r;
          });
          if (pair[side].stages) stages.push(pair[side].stages);
          process.stdout.write(`${side[0]}${round(pair[side].throughput)} `);
          await sleep(C.hangMs + 200); // the hanging receivers let go before the next round
        }
        pairs.push(pair);
      }
      process.stdout.write('\n');
      results.push({ ...summarise(name, 'first attempts/s', pairs), stages });
      console.log(`${name}, service stages (ms after the request, per pair): ${JSON.stringify(stages)}`);
      lap(name);
      await db.query(`UPDATE webhook_subscriptions SET deleted_at = now() WHERE workspace_id = $1`, [main.workspaceId]);
    }

    if (scheduling) {
      const serviceQ = new Queue('publish', { connection: bullConnection(app.redisUrl), prefix: bullPrefix });
      queues.push(serviceQ);
      const name = 'Scheduling (posts due in one minute)';
      results.push(await guarded(name, () => schedulingRun(db, scheduling, serviceQ, app.pid())));
      lap(name);
    }
    // Last: it stops the PROCESS_ROLE=all service, whose outbox relay would otherwise take the events.
    if (scaling) {
      const name = 'Scale-out pipeline (2 api + 2 worker vs 1 + 1)';
      results.push(await guarded(name, () => scaleOutRun(db, scaling, serviceEnv, fakeUrl)));
      lap(name);
    }

    const rows = results.map((r) => ({
      scenario: r.name,
      unit: r.unit,
      'baseline /s': round(r.baseline.throughput, 1),
      'service /s': round(r.candidate.throughput, 1),
      'base p50/p99 ms': `${round(r.baseline.p50)}/${round(r.baseline.p99)}`,
      'svc p50/p99 ms': `${round(r.candidate.p50)}/${round(r.candidate.p99)}`,
      'base/svc RSS MB': `${round(r.baseline.rssMb)}/${round(r.candidate.rssMb)}`,
      ratio: round(r.ratio, 2),
      target: r.target,
      ok: r.ok ? 'yes' : 'NO',
    }));
    console.table(rows);
    if (roundTrips.length)
      console.table(
        roundTrips.map((r) => ({
          scenario: r.scenario,
          'Postgres / request': r.pg,
          'Redis / request': r.redis,
          limit: `≤ ${r.limit.pg} + ${r.limit.redis}`,
          ok: r.ok ? 'yes' : 'NO',
        })),
      );
    const data = {
      at: new Date().toISOString(),
      node: process.version,
      quick,
      config: C,
      results,
      rows,
      roundTrips,
      seconds: timings,
      totalSeconds: round((performance.now() - benchStarted) / 1000),
    };
    console.log(
      `Took ${data.totalSeconds} s: ${Object.entries(timings)
        .map(([k, v]) => `${k} ${v} s`)
        .join('; ')}`,
    );
    const file = writeResults(quick ? 'quick-' : 'full-', data);
    // latest.json (committed, the README's table) is the last unfiltered full run; a quick run has
    // its own latest-quick.json, so CI and local quick runs leave the committed file alone.
    if (!only.source || only.source === '(?:)')
      copyFileSync(file, join(root, `bench/results/latest${quick ? '-quick' : ''}.json`));
    const failed =
      gate === 'floor' ? results.filter((r) => !(r.ratio >= (FLOORS[r.name] ?? 0))) : results.filter((r) => !r.ok);
    const errors = results.filter((r) => r.errors > 0);
    if (errors.length) console.log(`Errors (non-2xx or unfinished) in: ${errors.map((r) => r.name).join(', ')}`);
    const tooMany = roundTrips.filter((r) => !r.ok);
    if (tooMany.length) {
      console.log(
        `Above the round-trip limit: ${tooMany.map((r) => `${r.scenario} (${r.pg} + ${r.redis}, ≤ ${r.limit.pg} + ${r.limit.redis})`).join('; ')}`,
      );
      process.exitCode = 1;
    }
    if (failed.length) {
      const what = gate === 'floor' ? 'regression floor' : 'target';
      console.log(
        `Below ${what}: ${failed.map((r) => `${r.name} (${round(r.ratio, 2)}, ${gate === 'floor' ? `≥ ${FLOORS[r.name]}×` : r.target})`).join('; ')}`,
      );
      process.exitCode = 1;
    }
  } finally {
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
    for (const c of children) c.kill('SIGTERM');
    await db.end().catch(() => undefined);
    await app.cleanup();
  }
}

/** `n` active Facebook pages (sealed tokens the fake network accepts) in the tenant's profile; their ids. */
async function insertAccounts(db, tenant, n, tag) {
  const ids = [];
  for (let i = 0; i < n; i++) {
    const { rows } = await db.query(
      `INSERT INTO social_accounts (workspace_id, profile_id, platform, platform_account_id, name, status, access_token_enc, token_key_id, connected_at)
       VALUES ($1, $2, 'facebook', $3, $4, 'active', $5, 'k1', now()) RETURNING id`,
      [
        tenant.workspaceId,
        tenant.profileId,
        `${tag}${i}${randomBytes(3).toString('hex')}`,
        `Bench page ${i}`,
        seal(`tok_${tag}${i}`),
      ],
    );
    ids.push(rows[0].id);
  }
  return ids;
}

/**
 * Scale-out: posts × 3 targets created with publishNow through the api processes (round robin, 20
 * in flight), with 1 api + 1 worker and with 2 api + 2 worker processes (each configuration its
 * own Redis prefix, started afresh each run, interleaved), the network answering in 50 ms. What is
 * measured is throughput, not start-up: once a run's processes are up, an untimed warm-up batch of
 * C.scaleWarmup posts (default 100) goes through them, drained until every post is final and every
 * event of it delivered (so the JIT, the pools and the connections are warm, paid once per
 * process, which in a 6-second run of fresh processes was a large share of the CPU and weighed
 * twice in 2 + 2); then the timed batch of C.scalePosts posts (default 500), from its first
 * request until every post is final, with the CPU accounting over that window only. Correctness
 * per run, warm-up included: no (page, body) published twice at the fake network, and every event
 * acknowledged by the one webhook receiver subscribed to all events. Ratio: 2 + 2 throughput ÷
 * 1 + 1 (median of pairs).
 */
async function scaleOutRun(db, tenant, serviceEnv, fakeUrl) {
  const name = 'Scale-out pipeline (2 api + 2 worker vs 1 + 1)';
  process.stdout.write(`${name}: `);
  const pid = app.pid();
  if (pid) {
    process.kill(pid, 'SIGTERM');
    while (existsSync(`/proc/${pid}`)) await sleep(200);
  }
  const accounts = await insertAccounts(db, tenant, 3, 'scale');
  await db.query(
    `INSERT INTO webhook_subscriptions (workspace_id, profile_id, url, events, secret_enc) VALUES ($1, $2, $3, ARRAY['*'], $4)`,
    [
      tenant.workspaceId,
      tenant.profileId,
      `${fakeUrl}/hooks/1`,
      seal(`whsec_${randomBytes(32).toString('base64url')}`),
    ],
  );
  await sleep(20);
  let runNo = 0;
  const run = async (n) => {
    runNo += 1;
    const prefix = `${app.redisPrefix}:scale${runNo}`;
    const procs = [];
    const start = async (role) => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const child = spawn(process.execPath, ['-r', '@swc-node/register', 'src/main.ts'], {
        cwd: root,
        env: {
          ...process.env,
          ...serviceEnv,
          SWC_NODE_PROJECT: 'tsconfig.json',
          DATABASE_URL: app.dbUrl.toString(),
          REDIS_URL: app.redisUrl,
          REDIS_PREFIX: prefix,
          PORT: String(port),
          PUBLIC_BASE_URL: base,
          PROCESS_ROLE: role,
          DB_MIGRATE_ON_START: 'false',
          // The cluster-wide cap on publish calls per network (default 8) does not grow with the
          // workers: left at 8 it is what both configurations measure (1.0×). Above what two
          // workers can have in flight (2 × 5 posts × 3 targets), so the workers are measured
          // (BENCH_SCALE_NETWORK_CONCURRENCY=8 shows the capped case).
          NETWORK_CONCURRENCY: process.env.BENCH_SCALE_NETWORK_CONCURRENCY ?? '64',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      procs.push(child);
      // A worker serves no HTTP: it is up when it says so on stdout.
      const up = new Promise((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d) => {
          // Tested before trimming: with batched log lines one chunk can hold the line and 4 KiB after it.
          if (/Worker started|API listening/.test(out + d)) resolve();
          out = (out + d).slice(-1000); // log lines follow; keep only the tail
        });
        child.once('exit', (code) => reject(new Error(`a scale-out ${role} process exited (${code})`)));
      });
      up.catch(() => undefined);
      return { role, base, child, up };
    };
    const started = await Promise.all([
      ...Array.from({ length: n }, () => start('api')),
      ...Array.from({ length: n }, () => start('worker')),
    ]);
    for (const s of started) await s.up;
    const apis = started.filter((s) => s.role === 'api').map((s) => s.base);
    const headers = { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' };
    /** One batch: `count` posts created (20 in flight), until all final; `timed` adds the CPU over that window. */
    const batch = async (label, count, timed) => {
      await fetch(`${fakeUrl}/reset`, { method: 'POST' });
      const batchStart = new Date();
      const cpuBefore = timed ? cpuSnapshot(started) : null;
      const backendsBefore = timed ? await backendPids(db) : [];
      const t0 = Date.now();
      const ids = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (next < count) {
            const i = next++;
            const res = await fetch(`${apis[i % apis.length]}/v1/posts`, {
              method: 'POST',
              headers,
              body: JSON.stringify({
                content: `Bench scale ${runNo} ${label} ${i}`,
                accountIds: accounts,
                publishNow: true,
              }),
            });
            const body = await res.json();
            if (res.status !== 201) throw new Error(`POST /v1/posts answered ${res.status}: ${JSON.stringify(body)}`);
            ids.push(body.id ?? body.post?.id);
          }
        }),
      );
      const result = await waitPublished(db, ids, t0);
      const cpuAfter = timed ? cpuSnapshot(started) : null;
      const backends = new Set([...backendsBefore, ...(timed ? await backendPids(db) : [])]);
      const cpu = timed ? cpuSince(cpuBefore, cpuAfter, count, backends) : null;
      if (cpu) process.stdout.write(`[${n}+${n} ${describeCpu(cpu)}] `);
      // Every event of the batch acknowledged once the outbox and the deliveries settle (up to 60 s).
      const expected = async () =>
        (
          await db.query(`SELECT count(*)::int AS n FROM events WHERE workspace_id = $1 AND created_at >= $2`, [
            tenant.workspaceId,
            batchStart,
          ])
        ).rows[0].n;
      let stats;
      let events = 0;
      for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
        stats = await (await fetch(`${fakeUrl}/stats`)).json();
        events = await expected();
        if (stats.eventsAcknowledged >= events) break;
      }
      return { result, stats, events, cpu };
    };
    const warm = await batch('warm-up', C.scaleWarmup, false);
    const timed = await batch('timed', C.scalePosts, true);
    for (const c of procs) c.kill('SIGTERM');
    await Promise.all(procs.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    await db.query(`DELETE FROM posts WHERE workspace_id = $1`, [tenant.workspaceId]);
    await db.query(`DELETE FROM events WHERE workspace_id = $1`, [tenant.workspaceId]);
    return {
      ...timed.result,
      errors: timed.result.errors + warm.result.errors,
      rssMb: null,
      duplicates: timed.stats.duplicatePublishes + warm.stats.duplicatePublishes,
      publishes: timed.stats.distinctPublishes,
      events: timed.events + warm.events,
      eventsAcknowledged:
        Math.min(timed.events, timed.stats.eventsAcknowledged) + Math.min(warm.events, warm.stats.eventsAcknowledged),
      cpu: timed.cpu,
    };
  };
  const pairs = [];
  for (let i = 0; i < C.pairs; i++) {
    const pair = { baseline: await run(1) };
    process.stdout.write(`b${round(pair.baseline.throughput, 1)} `);
    pair.candidate = await run(2);
    process.stdout.write(`c${round(pair.candidate.throughput, 1)} `);
    pairs.push(pair);
  }
  const runs = pairs.flatMap((p) => [p.baseline, p.candidate]);
  const duplicates = runs.reduce((n, r) => n + r.duplicates, 0);
  const missing = runs.reduce((n, r) => n + Math.max(0, r.events - r.eventsAcknowledged), 0);
  const unfinished = runs.reduce((n, r) => n + r.errors, 0);
  const events = runs.reduce((n, r) => n + r.events, 0);
  console.log(
    `\n  published twice: ${duplicates}; events not acknowledged: ${missing} of ${events}; posts not published: ${unfinished}`,
  );
  const r = summarise(name, 'posts/s', pairs);
  r.correctness = { duplicates, missingEvents: missing, unpublished: unfinished, runs };
  r.ok &&= duplicates === 0 && missing === 0 && unfinished === 0;
  r.target += `, 0 published twice (${duplicates}), every event delivered (${missing} missing)`;
  return r;
}

// CPU accounting for the scale-out (Linux /proc; null elsewhere): utime + stime of each api and
// worker process, of every `postgres` and `redis-server` process on the machine (per pid, so a
// backend that exits mid-run takes only its share of the window with it: a slight undercount),
// how long each api/worker main thread waited runnable for a core (/proc/<pid>/schedstat), and
// the machine's busy share from /proc/stat.
const CLK_TCK = 100; // USER_HZ: 100 on every Linux this bench runs on
const procTicks = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0; // exited
  }
};
/** Nanoseconds the process's main thread has spent runnable on a run queue, not running. */
const runQueueNs = (pid) => {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return 0; // exited, or a kernel without schedstats
  }
};
/** Ticks per pid of every process named `comm`. */
const commTicks = (comm) => {
  const ticks = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm) ticks.set(pid, procTicks(pid));
    } catch {
      // exited meanwhile
    }
  }
  return ticks;
};
/** The pids of the Postgres backends connected to the bench's database (the bench's own client left out). */
const backendPids = async (db) =>
  (
    await db.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
  ).rows.map((r) => r.pid);
/** Ticks spent between two commTicks() (processes started meanwhile count from zero). */
const ticksBetween = (a, b) => [...b].reduce((n, [pid, t]) => n + Math.max(0, t - (a.get(pid) ?? 0)), 0);
function cpuSnapshot(started) {
  if (!existsSync('/proc/stat')) return null;
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const v = fields.slice(0, 8).map(Number);
  return {
    at: performance.now(),
    machine: { total: v.reduce((a, b) => a + b, 0), idle: v[3] + v[4] },
    procs: started.map((p) => ({
      role: p.role,
      pid: p.child.pid,
      ticks: procTicks(p.child.pid),
      waitNs: runQueueNs(p.child.pid),
    })),
    postgres: commTicks('postgres'),
    redis: commTicks('redis-server'),
    load: readFileSync('/proc/loadavg', 'utf8').split(' ')[0],
  };
}
/**
 * Each process's (and Postgres', Redis') average CPU over the window, in cores; the machine's busy
 * %; with `posts`, the CPU milliseconds per post of each part and of all of them together (what
 * shared-machine runs can compare when their throughputs cannot be).
 */
function cpuSince(a, b, posts, ownBackends = new Set()) {
  if (!a || !b) return null;
  const s = (b.at - a.at) / 1000;
  const cores = (ticks) => round(ticks / CLK_TCK / s, 2);
  const mine = (r) => b.procs.filter((p) => p.role === r).map((p) => [a.procs.find((q) => q.pid === p.pid), p]);
  const role = (r) => mine(r).map(([x, y]) => cores(y.ticks - x.ticks));
  // Share of the window each process's main (JS) thread was runnable but waiting for a core.
  const waiting = (r) => mine(r).map(([x, y]) => Math.round((y.waitNs - x.waitNs) / 1e7 / s));
  const dt = b.machine.total - a.machine.total;
  const ms = (ticks) => round((ticks * (1000 / CLK_TCK)) / posts, 1);
  const sum = (r) => mine(r).reduce((t, [x, y]) => t + y.ticks - x.ticks, 0);
  const pgTicks = ticksBetween(a.postgres, b.postgres);
  // The backends serving this bench's database only: what the service's statements cost Postgres,
  // without the other databases' work on a shared machine (nor Postgres' own background writers).
  const own = (m) => new Map([...m].filter(([pid]) => ownBackends.has(Number(pid))));
  const ownPgTicks = ticksBetween(own(a.postgres), own(b.postgres));
  const redisTicks = ticksBetween(a.redis, b.redis);
  const msPerPost = posts
    ? {
        api: ms(sum('api')),
        worker: ms(sum('worker')),
        postgres: ms(pgTicks),
        postgresBackends: ms(ownPgTicks),
        redis: ms(redisTicks),
        total: ms(sum('api') + sum('worker') + pgTicks + redisTicks),
      }
    : undefined;
  return {
    seconds: round(s, 1),
    msPerPost,
    api: role('api'),
    worker: role('worker'),
    apiWaitingPct: waiting('api'),
    workerWaitingPct: waiting('worker'),
    postgres: cores(ticksBetween(a.postgres, b.postgres)),
    redis: cores(ticksBetween(a.redis, b.redis)),
    machineBusyPct: Math.round((100 * (dt - (b.machine.idle - a.machine.idle))) / Math.max(1, dt)),
    load: [a.load, b.load],
  };
}
const describeCpu = (c) =>
  `cores: api ${c.api.join('+')}, worker ${c.worker.join('+')}, postgres ${c.postgres}, redis ${c.redis}; ` +
  `waiting for a core: api ${c.apiWaitingPct.join('+')}%, worker ${c.workerWaitingPct.join('+')}%; ` +
  `machine ${c.machineBusyPct}% busy, load ${c.load.join('→')}` +
  (c.msPerPost
    ? `; CPU ms per post: api ${c.msPerPost.api}, worker ${c.msPerPost.worker}, postgres ${c.msPerPost.postgres} ` +
      `(this database's backends ${c.msPerPost.postgresBackends}), ` +
      `redis ${c.msPerPost.redis}, total ${c.msPerPost.total}`
    : '');

/**
 * Scheduling: C.schedulePosts posts (one target each) scheduled for the same instant about a
 * minute ahead, written as the service writes a scheduled post (the row, its target and the
 * delayed `schedule-post` job per version; the `post.scheduled` events are left out so the outbox
 * does not fan out 100k events meanwhile); from that instant until none is still `scheduled`.
 * Their publish jobs and posts are dropped afterwards (publishing them is the pipeline scenario).
 */
async function schedulingRun(db, tenant, queue, pid) {
  const name = 'Scheduling (posts due in one minute)';
  const n = C.schedulePosts;
  process.stdout.write(`${name}: seeding ${n.toLocaleString('en')} posts… `);
  const seedStarted = performance.now();
  const [account] = await insertAccounts(db, tenant, 1, 'sched');
  const dueAt = new Date(Math.ceil((Date.now() + 60_000) / 1000) * 1000);
  const { rows } = await db.query(
    `WITH p AS (
       INSERT INTO posts (workspace_id, profile_id, state, content_type, message, content, scheduled_at)
       SELECT $1, $2, 'scheduled', 'text', 'Bench scheduled ' || g, jsonb_build_object('contentType', 'text', 'message', 'Bench scheduled ' || g), $4
         FROM generate_series(1, $3) g RETURNING id, version),
     t AS (
       INSERT INTO post_targets (post_id, profile_id, account_id, platform, page_name, status)
       SELECT p.id, $2, $5, 'facebook', 'Bench page 0', 'pending' FROM p)
     SELECT id, version FROM p`,
    [tenant.workspaceId, tenant.profileId, n, dueAt, account],
  );
  // Statistics for the bulk load, as autovacuum gathers them within a minute of one in production
  // (off on the bench's server). Without them the post-count triggers look each promoted post's
  // targets up through ix_post_targets_profile_platform, a scan of all 100,000 targets per row.
  await db.query('ANALYZE posts, post_targets');
  for (let i = 0; i < rows.length; i += 5000)
    await queue.addBulk(
      rows.slice(i, i + 5000).map((r) => ({
        name: 'schedule-post',
        data: { postId: r.id, version: r.version },
        opts: {
          jobId: `schedule:${r.id}:${r.version}`,
          delay: Math.max(0, dueAt.getTime() - Date.now()),
          attempts: 5,
          backoff: { type: 'exponential', delay: 1000 },
        },
      })),
    );
  const seeded = performance.now() - seedStarted;
  const lateSeed = Date.now() > dueAt.getTime();
  process.stdout.write(`${Math.round(seeded / 1000)} s${lateSeed ? ' (LATE: past the due time)' : ''}; waiting… `);
  const remaining = async () =>
    (
      await db.query(`SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1 AND state = 'scheduled'`, [
        tenant.workspaceId,
      ])
    ).rows[0].n;
  // Stop waiting a minute past the target: enough to tell the rate; the rest is projected from it.
  // 130 s: past the 120 s target, so a met target shows as such and a missed one is projected.
  const limitMs = arg('schedule-wait', 130) * 1000;
  const result = await withPeakRss(pid, async () => {
    while (Date.now() < dueAt.getTime()) await sleep(Math.min(1000, dueAt.getTime() - Date.now()));
    let p50 = NaN;
    let p99 = NaN;
    let left = n;
    while (left > 0 && Date.now() - dueAt.getTime() < limitMs) {
      await sleep(500);
      left = await remaining();
      const at = Date.now() - dueAt.getTime();
      if (Number.isNaN(p50) && left <= n / 2) p50 = at;
      if (Number.isNaN(p99) && left <= n / 100) p99 = at;
    }
    const lastMs = Date.now() - dueAt.getTime();
    const rate = ((n - left) / lastMs) * 1000;
    // Not all queued when the wait ended: the time all would take at the rate measured so far.
    return { throughput: rate, p50, p99, errors: left, seconds: left ? n / rate : lastMs / 1000, projected: left > 0 };
  });
  const when = result.projected
    ? `${result.errors.toLocaleString('en')} still scheduled ${limitMs / 1000} s after their time: all queued in about ${round(result.seconds)} s at ${round(result.throughput)}/s (projected)`
    : `all queued ${round(result.seconds, 1)} s after their time`;
  console.log(when);
  // Stop the promotions still running, drop their jobs, then the posts (retrying a deadlock with a
  // promotion that was mid-transaction).
  await queue.pause();
  // A thousand jobs per script: one drain of 100,000 jobs holds Redis (BUSY) for everyone on it.
  for (const type of ['wait', 'paused', 'prioritized', 'delayed'])
    while ((await queue.clean(0, 1000, type)).length > 0);
  for (let attempt = 1; ; attempt++) {
    try {
      await deleteWorkspacePostsFast(db, tenant);
      break;
    } catch (err) {
      if (attempt >= 10) throw err;
      await sleep(500);
    }
  }
  await queue.resume();
  const t = TARGETS[name];
  return {
    name,
    unit: 'posts/s queued',
    pairs: [],
    baseline: { throughput: null, p50: null, p99: null, rssMb: null },
    candidate: result,
    ratio: null,
    seconds: round(result.seconds, 1),
    posts: n,
    seedSeconds: round(seeded / 1000, 1),
    projected: result.projected,
    target: `all queued ≤ ${t.seconds} s (${result.projected ? '~' : ''}${round(result.seconds, 1)} s)`,
    ok: !result.projected && result.seconds <= t.seconds,
    errors: 0, // posts still scheduled show in `target` and `ok`, not as request errors
    stillScheduled: result.errors,
  };
}

/**
 * Deletes the workspace's posts without their triggers: the per-row counter trigger makes one
 * DELETE of 100,000 posts decrement the same counter row 100,000 times in one transaction (over
 * ten minutes here). `session_replication_role = replica` skips triggers and cascades, so the
 * rows that point at the posts go first and the profile's counters go with them (nothing reads
 * that workspace afterwards).
 */
async function deleteWorkspacePostsFast(db, tenant) {
  await db.query('BEGIN');
  try {
    await db.query(`SET LOCAL session_replication_role = replica`);
    const ids = `SELECT id FROM posts WHERE workspace_id = $1`;
    for (const table of ['post_targets', 'post_history', 'posting_queue_slots'])
      await db.query(`DELETE FROM ${table} WHERE post_id IN (${ids})`, [tenant.workspaceId]);
    await db.query(`DELETE FROM posts WHERE workspace_id = $1`, [tenant.workspaceId]);
    for (const table of ['post_counts', 'post_platform_counts'])
      await db.query(`DELETE FROM ${table} WHERE profile_id = $1`, [tenant.profileId]);
    await db.query('COMMIT');
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * Postgres and Redis round trips per request of scenario `s`: `n` sequential requests, minus what
 * the service does meanwhile when idle (measured just before over as long).
 */
async function countRoundTrips(countUrl, base, s, headers, n = 100) {
  const read = async () => (await fetch(countUrl)).json();
  const idleFrom = await read();
  const t0 = performance.now();
  await sleep(1000);
  const from = await read();
  const t1 = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}${s.path}`, { method: s.method ?? 'GET', headers, body: s.body });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${s.name} answered ${res.status} while counting round trips`);
  }
  const to = await read();
  const busyMs = performance.now() - t1;
  const per = (k) => (to[k] - from[k] - ((from[k] - idleFrom[k]) * busyMs) / (t1 - t0)) / n;
  return { pg: per('pg'), redis: per('redis') };
}

/** Median of each side's numbers over the pairs, and the median of the pairs' ratios. */
function summarise(name, unit, pairs) {
  const side = (k) => ({
    throughput: median(pairs.map((p) => p[k].throughput)),
    p50: median(pairs.map((p) => p[k].p50)),
    p99: median(pairs.map((p) => p[k].p99)),
    rssMb: Math.max(...pairs.map((p) => p[k].rssMb)),
  });
  const baseline = side('baseline');
  const candidate = side('candidate');
  const ratio = median(pairs.map((p) => p.candidate.throughput / p.baseline.throughput));
  const p99x = median(pairs.map((p) => p.candidate.p99 / Math.max(1, p.baseline.p99)));
  const t = TARGETS[name] ?? {};
  const parts = [`≥ ${t.ratio}×`];
  let ok = ratio >= t.ratio;
  if (t.p99x) {
    parts.push(`p99 ≤ ${t.p99x}× (${round(p99x, 1)}×)`);
    ok &&= p99x <= t.p99x;
  }
  if (t.p99ms) {
    parts.push(`p99 ≤ ${t.p99ms} ms (${round(candidate.p99)} ms)`);
    // The issue's one absolute target: judged in the full run, never in --quick (CI fails on ratios only).
    if (!quick) ok &&= candidate.p99 <= t.p99ms;
  }
  const errors = pairs.reduce((n, p) => n + (p.candidate.errors ?? 0) + (p.baseline.errors ?? 0), 0);
  return { name, unit, pairs, baseline, candidate, ratio, p99x, target: parts.join(', '), ok, errors };
}

function bullConnection(redisUrl) {
  const u = new URL(redisUrl);
  return { host: u.hostname, port: Number(u.port || 6379), maxRetriesPerRequest: null };
}

/** Waits until no post of the workspace is queued or processing (publishNow backlog). */
async function drain(db, workspaceId, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1 AND state IN ('queued', 'processing')`,
      [workspaceId],
    );
    if (rows[0].n === 0) return;
    await sleep(250);
  }
}

async function drainOutbox(db, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM events WHERE dispatched_at IS NULL`);
    if (rows[0].n === 0) return;
    await sleep(250);
  }
}

async function insertQueuedPosts(db, tenant, accounts, n) {
  const { rows } = await db.query(
    `WITH p AS (
       INSERT INTO posts (workspace_id, profile_id, state, content_type, message, content)
       SELECT $1, $2, 'queued', 'text', 'Bench publish ' || g, jsonb_build_object('contentType', 'text', 'message', 'Bench publish ' || g)
         FROM generate_series(1, $3) g RETURNING id),
     t AS (
       INSERT INTO post_targets (post_id, profile_id, account_id, platform, page_name, status)
       SELECT p.id, $2, a.id, 'facebook', 'Bench page', 'pending' FROM p CROSS JOIN unnest($4::uuid[]) AS a(id))
     SELECT id FROM p`,
    [tenant.workspaceId, tenant.profileId, n, accounts],
  );
  return rows.map((r) => r.id);
}

async function waitPublished(db, ids, t0, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  let rows = [];
  while (Date.now() < deadline) {
    ({ rows } = await db.query(
      `SELECT state, extract(epoch FROM updated_at) * 1000 AS at FROM posts WHERE id = ANY($1::uuid[]) AND state IN ('published', 'partially_published', 'failed', 'cancelled')`,
      [ids],
    ));
    if (rows.length === ids.length) break;
    await sleep(100);
  }
  const times = rows.map((r) => Number(r.at) - t0);
  const last = Math.max(...times);
  const bad = ids.length - rows.filter((r) => r.state === 'published').length;
  return { throughput: (rows.length / last) * 1000, p50: pct(times, 50), p99: pct(times, 99), errors: bad };
}

async function waitDeliveries(fakeUrl, n, t0, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  let stats;
  while (Date.now() < deadline) {
    stats = await (await fetch(`${fakeUrl}/stats`)).json();
    if (Object.keys(stats.firstAttempt).length >= n) break;
    await sleep(50);
  }
  const times = Object.values(stats.firstAttempt).map((t) => t - t0);
  const last = Math.max(...times);
  return {
    throughput: (times.length / last) * 1000,
    p50: pct(times, 50),
    p99: pct(times, 99),
    errors: n - times.length,
  };
}

/**
 * Where the service's time went (ms after the request was sent), from its own rows: the event
 * committed, relayed (dispatched_at), the deliveries inserted (fan-out), their first attempts
 * started (last_attempt_at, p50/p99) and the event marked handled.
 */
async function fanOutStages(db, workspaceId, t0) {
  const ms = (col) => `round(extract(epoch FROM ${col}) * 1000 - $2)::float8`;
  const { rows } = await db.query(
    `SELECT ${ms('e.created_at')} AS committed, ${ms('e.dispatched_at')} AS relayed, ${ms('e.handled_at')} AS handled,
            (SELECT ${ms('min(d.created_at)')} FROM webhook_deliveries d WHERE d.event_id = e.id) AS inserted,
            (SELECT ${ms('percentile_disc(0.5) WITHIN GROUP (ORDER BY d.last_attempt_at)')} FROM webhook_deliveries d WHERE d.event_id = e.id) AS "attemptP50",
            (SELECT ${ms('percentile_disc(0.99) WITHIN GROUP (ORDER BY d.last_attempt_at)')} FROM webhook_deliveries d WHERE d.event_id = e.id) AS "attemptP99"
       FROM events e WHERE e.workspace_id = $1 AND e.type = 'post.created' AND e.created_at >= to_timestamp($2 / 1000.0)
      ORDER BY e.created_at LIMIT 1`,
    [workspaceId, t0],
  );
  return rows[0] ?? null;
}

/** Lists at least this long come from the seed template. */
const SEED_TEMPLATE_MIN = 100_000;
/**
 * The seed template's name: one per schema (the migrations' file names) and per version of
 * seedPosts (bump SEED_VERSION when it changes what it writes).
 */
const SEED_VERSION = 1;
const SEED_TEMPLATE = `sps_bench_seed_${createHash('sha256')
  .update(`${SEED_VERSION}:${readdirSync(join(root, 'migrations')).sort().join(',')}`)
  .digest('hex')
  .slice(0, 12)}`;

/**
 * Creates the bench's database as a copy of the seed template (built first when missing: a
 * migrated database with one workspace whose profile holds `n` posts, two minutes here); returns
 * that workspace's bootstrap answer (its key included), kept in the template's bench_seed table.
 * The template stays for the next run (`--fresh-seed` rebuilds it); older templates are dropped
 * when a new one is built.
 */
async function databaseFromSeedTemplate(n) {
  const admin = new URL(app.baseDb);
  admin.pathname = '/postgres';
  const pgAdmin = new pg.Client({ connectionString: admin.toString() });
  await pgAdmin.connect();
  try {
    const exists = async (name) =>
      (await pgAdmin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount > 0;
    if (process.argv.includes('--fresh-seed'))
      await pgAdmin.query(`DROP DATABASE IF EXISTS "${SEED_TEMPLATE}" WITH (FORCE)`);
    if (!(await exists(SEED_TEMPLATE))) {
      const building = `${SEED_TEMPLATE}_building`;
      await pgAdmin.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`);
      const seedApp = throwawayApp({ dbName: building, fromSource: true, keepDb: true });
      const tenant = seedApp.bootstrap(`Bench list ${n}`);
      const seedDb = new pg.Client({ connectionString: seedApp.dbUrl.toString() });
      await seedDb.connect();
      try {
        await seedPosts(seedDb, tenant, n);
        await seedDb.query(`CREATE TABLE bench_seed (tenant jsonb NOT NULL)`);
        await seedDb.query(`INSERT INTO bench_seed (tenant) VALUES ($1)`, [JSON.stringify(tenant)]);
      } finally {
        await seedDb.end();
      }
      const { rows: old } = await pgAdmin.query(
        `SELECT datname FROM pg_database WHERE datname LIKE 'sps\\_bench\\_seed\\_%' AND datname NOT LIKE '%\\_building'`,
      );
      for (const { datname } of old) await pgAdmin.query(`DROP DATABASE IF EXISTS "${datname}"`).catch(() => undefined); // in use: left
      await pgAdmin.query(`ALTER DATABASE "${building}" RENAME TO "${SEED_TEMPLATE}"`);
    }
    const started = performance.now();
    // FILE_COPY: copies the files (seconds) where the default WAL_LOG writes the whole copy to the WAL.
    for (let attempt = 1; ; attempt++) {
      try {
        await pgAdmin.query(`CREATE DATABASE "${app.dbName}" TEMPLATE "${SEED_TEMPLATE}" STRATEGY FILE_COPY`);
        break;
      } catch (err) {
        // "source database is being accessed by other users": another bench copying it right now.
        if (attempt >= 10 || err.code !== '55006') throw err;
        await sleep(1000);
      }
    }
    const copy = new pg.Client({ connectionString: app.dbUrl.toString() });
    await copy.connect();
    try {
      const tenant = (await copy.query(`SELECT tenant FROM bench_seed`)).rows[0].tenant;
      console.log(`Database copied from ${SEED_TEMPLATE} in ${Math.round((performance.now() - started) / 1000)} s`);
      return tenant;
    } finally {
      await copy.end();
    }
  } finally {
    await pgAdmin.end();
  }
}

/** N posts (with 1–2 targets each) in the list workspace's profile, as bench/posts-list.mjs seeds them. */
async function seedPosts(db, tenant, n) {
  const started = performance.now();
  const already = (await db.query(`SELECT count(*)::int AS n FROM posts WHERE profile_id = $1`, [tenant.profileId]))
    .rows[0].n;
  if (already >= n) return console.log(`${n.toLocaleString('en')} posts already seeded (template ${SEED_TEMPLATE})`);
  const { rows } = await db.query(
    `INSERT INTO social_accounts (workspace_id, profile_id, platform, platform_account_id, name, status, connected_at)
     VALUES ($1, $2, 'facebook', $3, 'Bench list page', 'active', now()) RETURNING id`,
    [tenant.workspaceId, tenant.profileId, `list_${randomUUID()}`],
  );
  for (let from = already + 1; from <= n; from += 100_000) {
    const to = Math.min(n, from + 99_999);
    await db.query(
      `WITH src AS (
         SELECT g, gen_random_uuid() AS id,
                CASE WHEN g % 10 < 6 THEN 'published' WHEN g % 10 < 8 THEN 'draft' ELSE 'failed' END AS state
           FROM generate_series($3::int, $4::int) g),
       p AS (
         INSERT INTO posts (id, workspace_id, profile_id, state, content_type, message, content, created_at, updated_at)
         SELECT id, $1, $2, state, 'text', 'Bench post ' || g, jsonb_build_object('contentType', 'text', 'message', 'Bench post ' || g),
                now() - g * interval '1 second', now() - g * interval '1 second' FROM src)
       INSERT INTO post_targets (post_id, profile_id, account_id, platform, page_name, status)
       SELECT id, $2, $5, 'facebook', 'Bench list page', 'success' FROM src`,
      [tenant.workspaceId, tenant.profileId, from, to, rows[0].id],
    );
  }
  await db.query('VACUUM ANALYZE posts');
  await db.query('VACUUM ANALYZE post_targets');
  console.log(`Seeded ${n.toLocaleString('en')} posts in ${Math.round((performance.now() - started) / 1000)} s`);
}

main().catch(async (err) => {
  console.error(err instanceof Error ? err.stack : err);
  for (const c of children) c.kill('SIGTERM');
  await app.cleanup().catch(() => undefined);
  process.exit(1);
});
