// node bench/posts-list.mjs (also the second part of `npm run bench`): GET /v1/posts with a
// million posts in one profile, against a throwaway database.
//   1. bootstraps a workspace in a new database (the admin CLI creates and migrates it)
//   2. seeds BENCH_POSTS posts (default 1,000,000) into its profile with generate_series, in
//      chunks of 100,000, plus 1–3 targets each (facebook, linkedin, youtube): the counter
//      triggers keep the totals as they would in production; then VACUUM ANALYZE
//   3. starts the service from source (api role) on a free port, waits for /health
//   4. times BENCH_REQUESTS (default 200) sequential GET /v1/posts per scenario (no filter, each
//      filter, combinations, a deep page) after a warm-up, and checks each `total` against a
//      count(*) of the posts; prints p50/p99, and the total's SQL alone (median of 5): the
//      counter sum the list runs now next to the count(*) it ran before
//   5. writes bench/results/posts-list-<time>.json, stops the app, drops the database (kept
//      with BENCH_KEEP_DB=1, to EXPLAIN queries) and the Redis keys.
// Needs PostgreSQL and Redis (DATABASE_URL / REDIS_URL, local defaults).
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { throwawayApp, writeResults } from './lib/throwaway-app.mjs';

const POSTS = Number(process.env.BENCH_POSTS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const CHUNK = 100_000;
const app = throwawayApp({
  dbPrefix: 'sps_bench_posts_',
  fromSource: true,
  keepDb: Boolean(process.env.BENCH_KEEP_DB),
});

const SCENARIOS = [
  { label: 'no filter', query: '' },
  { label: 'state=published', query: 'state=published' },
  { label: 'state=scheduled (rare)', query: 'state=scheduled' },
  { label: 'contentType=video', query: 'contentType=video' },
  { label: 'platform=facebook', query: 'platform=facebook' },
  { label: 'platform=youtube', query: 'platform=youtube' },
  { label: 'state=published&platform=linkedin', query: 'state=published&platform=linkedin' },
  { label: 'state+contentType+platform', query: 'state=published&contentType=image&platform=facebook' },
  { label: 'no filter, page 50', query: 'page=50' },
  // No such post: what the request path costs without data (auth, rate limit, logging…).
  { label: 'state=rejected (empty page)', query: 'state=rejected' },
];

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const ms = (n) => Math.round(n * 100) / 100;

/**
 * One profile's posts: states and content types in realistic proportions, newest every minute
 * back in time; 1–2 targets each (facebook on ~70%, linkedin on ~40%, youtube on the videos).
 */
async function seed(db, tenant) {
  const accounts = {};
  for (const platform of ['facebook', 'linkedin', 'youtube']) {
    const { rows } = await db.query(
      `INSERT INTO social_accounts (workspace_id, profile_id, platform, platform_account_id, name, status, connected_at) VALUES ($1, $2, $3, $4, $5, 'active', now()) RETURNING id`,
      [tenant.workspaceId, tenant.profileId, platform, `${platform}_bench`, `Bench ${platform}`],
    );
    accounts[platform] = rows[0].id;
  }
  const started = performance.now();
  for (let from = 1; from <= POSTS; from += CHUNK) {
    const to = Math.min(POSTS, from + CHUNK - 1);
    // One statement: the posts, then their targets (the counter triggers run at its end, as for
    // an API creation, where the targets follow their post in the same transaction).
    await db.query(
      `WITH src AS (
         SELECT g, gen_random_uuid() AS id,
                CASE WHEN g % 100 < 60 THEN 'published' WHEN g % 100 < 65 THEN 'failed' WHEN g % 100 < 70 THEN 'partially_published'
                     WHEN g % 100 < 72 THEN 'scheduled' WHEN g % 100 < 90 THEN 'draft' WHEN g % 100 < 97 THEN 'cancelled' ELSE 'pending_approval' END AS state,
                CASE WHEN g % 20 < 10 THEN 'text' WHEN g % 20 < 17 THEN 'image' ELSE 'video' END AS content_type
           FROM generate_series($3::int, $4::int) g
       ),
       posts_in AS (
         INSERT INTO posts (id, workspace_id, profile_id, state, content_type, message, content, created_at, updated_at)
         SELECT id, $1, $2, state, content_type, 'Bench post ' || g, jsonb_build_object('contentType', content_type, 'message', 'Bench post ' || g),
                now() - g * interval '1 minute', now() - g * interval '1 minute'
           FROM src
       )
       INSERT INTO post_targets (post_id, profile_id, account_id, platform, page_name, status)
       SELECT src.id, $2, a.account_id, a.platform, 'Bench ' || a.platform, 'success'
         FROM src CROSS JOIN LATERAL (
           SELECT $5::uuid AS account_id, 'facebook' AS platform WHERE src.g % 10 < 7
           UNION ALL SELECT $6::uuid, 'linkedin' WHERE src.g % 10 >= 6
           UNION ALL SELECT $7::uuid, 'youtube' WHERE src.content_type = 'video'
         ) a`,
      [tenant.workspaceId, tenant.profileId, from, to, accounts.facebook, accounts.linkedin, accounts.youtube],
    );
    process.stdout.write(
      `\r  seeded ${to.toLocaleString('en')} posts (${Math.round((performance.now() - started) / 1000)} s)`,
    );
  }
  process.stdout.write('\n');
  await db.query('VACUUM ANALYZE posts');
  await db.query('VACUUM ANALYZE post_targets');
  return Math.round((performance.now() - started) / 1000);
}

/** The exact count the list used to run (count(*) on posts with an EXISTS per platform; a platform alone counted on post_targets). */
function oldCountSql(profileId, query) {
  const q = new URLSearchParams(query);
  if (q.get('platform') && !q.get('state') && !q.get('contentType')) {
    return {
      sql: 'SELECT count(DISTINCT post_id)::int AS n FROM post_targets WHERE profile_id = $1 AND platform = $2',
      params: [profileId, q.get('platform')],
    };
  }
  const params = [profileId];
  let sql = 'SELECT count(*)::int AS n FROM posts p WHERE p.profile_id = $1';
  if (q.get('state')) sql += ` AND p.state = $${params.push(q.get('state'))}`;
  if (q.get('contentType')) sql += ` AND p.content_type = $${params.push(q.get('contentType'))}`;
  if (q.get('platform'))
    sql += ` AND EXISTS (SELECT 1 FROM post_targets t WHERE t.profile_id = p.profile_id AND t.platform = $${params.push(q.get('platform'))} AND t.post_id = p.id)`;
  return { sql, params };
}

/** The sum of counter rows the list runs now (PostsRepository.countPosts). */
function counterSql(profileId, query) {
  const q = new URLSearchParams(query);
  const params = [profileId];
  let sql = `SELECT coalesce(sum(n), 0)::int AS n FROM ${q.get('platform') ? 'post_platform_counts' : 'post_counts'} WHERE profile_id = $1`;
  if (q.get('platform')) sql += ` AND platform = $${params.push(q.get('platform'))}`;
  if (q.get('state')) sql += ` AND state = $${params.push(q.get('state'))}`;
  if (q.get('contentType')) sql += ` AND content_type = $${params.push(q.get('contentType'))}`;
  return { sql, params };
}

/** Median of 5 runs of a count query, straight on the database. */
async function timeCount(db, { sql, params }) {
  const times = [];
  let n = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    n = (await db.query(sql, params)).rows[0].n;
    times.push(performance.now() - t0);
  }
  return { n, medianMs: times.sort((a, b) => a - b)[2] };
}

async function timeList(url, headers, query) {
  const path = `${url}/v1/posts${query ? `?${query}` : ''}`;
  for (let i = 0; i < 20; i++) await (await fetch(path, { headers })).arrayBuffer(); // warm-up
  const times = [];
  let body;
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await fetch(path, { headers });
    body = await res.json();
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(body)}`);
  }
  times.sort((a, b) => a - b);
  return { total: body.total, posts: body.posts.length, p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function main() {
  console.log(
    `GET /v1/posts with ${POSTS.toLocaleString('en')} posts in one profile: throwaway database ${app.dbName}`,
  );
  const tenant = app.bootstrap('Bench posts');
  const db = new pg.Client({ connectionString: app.dbUrl.toString() });
  app.cleanupOnSignal(() => db.end().catch(() => undefined));
  try {
    await db.connect();
    const seedSeconds = await seed(db, tenant);
    const url = await app.start();
    await app.waitForHealth(url, 120_000);
    const headers = { authorization: `Bearer ${tenant.apiKey}` };
    console.log(`Timing ${REQUESTS} sequential requests per scenario…`);
    const rows = [];
    for (const s of SCENARIOS) {
      const api = await timeList(url, headers, s.query);
      const filters = s.query.replace(/(^|&)page=\d+/, '');
      const old = await timeCount(db, oldCountSql(tenant.profileId, filters));
      const counters = await timeCount(db, counterSql(tenant.profileId, filters));
      rows.push({
        scenario: s.label,
        total: api.total,
        exact: api.total === old.n ? 'yes' : `NO (count(*) = ${old.n})`,
        'p50 ms': ms(api.p50),
        'p99 ms': ms(api.p99),
        'total SQL ms (counters)': ms(counters.medianMs),
        'total SQL ms (old count(*))': ms(old.medianMs),
      });
    }
    console.table(rows);
    writeResults('posts-list-', {
      at: new Date().toISOString(),
      node: process.version,
      posts: POSTS,
      requests: REQUESTS,
      seedSeconds,
      rows,
    });
    if (rows.some((r) => r.exact !== 'yes')) process.exitCode = 1;
  } finally {
    await db.end().catch(() => undefined);
    await app.cleanup();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
