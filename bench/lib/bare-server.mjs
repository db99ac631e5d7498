// The same-work baseline for the HTTP scenarios: bare node:http + pg + ioredis, no framework.
// Per request, what the service does logically, in the fewest round trips a hand-written server
// would use: the key by its hash joined to its workspace (one query), the rolling-window rate
// limit (the service's own Lua script, one Redis call), then the route's work:
//   GET  /v1/profile  the profile row
//   POST /v1/posts    body parsed and checked, then one transaction: the post, its targets (the
//                     profile's active accounts given in the body), its history row and its
//                     post.created event, the monthly quota and daily cap as atomic counters
//                     in the same transaction
//   GET  /v1/posts    20 newest posts, their targets, the exact total from the counter rows
// Env: DATABASE_URL, REDIS_URL, REDIS_PREFIX, PORT (0 = any); prints "ready <port>" on stdout.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import IORedis from 'ioredis';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
pool.on('error', () => undefined); // idle clients cut when the bench drops the database
const redis = new IORedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `${process.env.REDIS_PREFIX ?? 'bare'}:barerl`;

redis.defineCommand('rollingWindow', {
  numberOfKeys: 2,
  lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local admitted = 1
for i = 1, 2 do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - tonumber(ARGV[2 * i - 1]))
  if redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[2 * i]) then admitted = 0 end
end
if admitted == 1 then
  for i = 1, 2 do
    redis.call('ZADD', KEYS[i], now, ARGV[5])
    redis.call('PEXPIRE', KEYS[i], ARGV[2 * i - 1])
  end
end
return admitted`,
});

const send = (res, status, body) => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
};

async function authenticate(req) {
  const m = /^Bearer\s+(\S+)$/.exec(req.headers.authorization ?? '');
  if (!m) return null;
  const hash = createHash('sha256').update(m[1]).digest('hex');
  const { rows } = await pool.query(
    `SELECT k.id, k.workspace_id, k.home_profile_id, k.max_posts_per_day, k.rate_limit_per_minute, k.expires_at, w.plan
       FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [hash],
  );
  const key = rows[0];
  if (!key || (key.expires_at && key.expires_at < new Date())) return null;
  const admitted = await redis.rollingWindow(
    `${prefix}:${key.id}:60`,
    `${prefix}:${key.id}:3600`,
    60_000,
    key.rate_limit_per_minute ?? 16,
    3_600_000,
    1_000_000_000,
    `${Date.now()}-${randomBytes(6).toString('hex')}`,
  );
  return admitted === 1 ? key : 'limited';
}

const readBody = (req) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

async function createPost(key, raw) {
  let body;
  try {
    body = JSON.parse(raw);
  } catch {
    return [400, { error: { code: 'invalid_request' } }];
  }
  const content = typeof body?.content === 'string' ? { contentType: 'text', message: body.content } : body?.content;
  if (!content || typeof content.message !== 'string' || !Array.isArray(body.accountIds))
    return [400, { error: { code: 'invalid_request' } }];
  const state = body.publishNow ? 'queued' : 'draft';
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const quota = await client.query(
      `SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1 AND created_at >= date_trunc('month', now())`,
      [key.workspace_id],
    );
    if (quota.rows[0].n >= 10_000_000) throw new Error('quota');
    const accounts = await client.query(
      `SELECT id, platform, name FROM social_accounts WHERE profile_id = $1 AND status = 'active' AND id = ANY($2::uuid[])`,
      [key.home_profile_id, body.accountIds],
    );
    const post = await client.query(
      `INSERT INTO posts (workspace_id, profile_id, state, content_type, message, content, created_by_key_id)
       VALUES ($1, $2, $3, 'text', $4, $5, $6) RETURNING id, created_at`,
      [key.workspace_id, key.home_profile_id, state, content.message, JSON.stringify(content), key.id],
    );
    const postId = post.rows[0].id;
    await client.query(
      `INSERT INTO post_targets (post_id, profile_id, account_id, platform, page_name, status)
       SELECT $1, $2, a.id, a.platform, a.name, 'pending' FROM unnest($3::uuid[], $4::text[], $5::text[]) AS a(id, platform, name)`,
      [
        postId,
        key.home_profile_id,
        accounts.rows.map((a) => a.id),
        accounts.rows.map((a) => a.platform),
        accounts.rows.map((a) => a.name),
      ],
    );
    await client.query(
      `INSERT INTO post_history (post_id, from_state, to_state, reason, actor) VALUES ($1, NULL, $2, 'created', $3)`,
      [postId, state, JSON.stringify({ type: 'api_key', id: key.id })],
    );
    await client.query(
      // Marked relayed at once: the service's outbox relay must not do the baseline's work.
      `INSERT INTO events (workspace_id, profile_id, type, actor, data, dispatched_at, handled_at) VALUES ($1, $2, 'post.created', $3, $4, now(), now())`,
      [
        key.workspace_id,
        key.home_profile_id,
        JSON.stringify({ type: 'api_key', id: key.id }),
        JSON.stringify({ postId }),
      ],
    );
    await client.query('COMMIT');
    return [201, { id: postId, state, post: { id: postId, state, content, targets: accounts.rows } }];
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

async function listPosts(key) {
  const [page, total] = await Promise.all([
    pool.query(`SELECT * FROM posts WHERE profile_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20`, [
      key.home_profile_id,
    ]),
    pool.query(`SELECT coalesce(sum(n), 0)::int AS n FROM post_counts WHERE profile_id = $1`, [key.home_profile_id]),
  ]);
  const targets = await pool.query(`SELECT * FROM post_targets WHERE post_id = ANY($1::uuid[])`, [
    page.rows.map((p) => p.id),
  ]);
  const byPost = new Map();
  for (const t of targets.rows) byPost.set(t.post_id, [...(byPost.get(t.post_id) ?? []), t]);
  return { posts: page.rows.map((p) => ({ ...p, targets: byPost.get(p.id) ?? [] })), total: total.rows[0].n };
}

const server = createServer(async (req, res) => {
  try {
    const raw = req.method === 'POST' ? await readBody(req) : '';
    const key = await authenticate(req);
    if (!key) return send(res, 401, { error: { code: 'invalid_api_key' } });
    if (key === 'limited') return send(res, 429, { error: { code: 'rate_limit_exceeded' } });
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/v1/profile') {
      const { rows } = await pool.query(`SELECT * FROM profiles WHERE id = $1 AND deleted_at IS NULL`, [
        key.home_profile_id,
      ]);
      return send(res, 200, { profile: rows[0] });
    }
    if (req.method === 'POST' && path === '/v1/posts') return send(res, ...(await createPost(key, raw)));
    if (req.method === 'GET' && path === '/v1/posts') return send(res, 200, await listPosts(key));
    send(res, 404, { error: { code: 'not_found' } });
  } catch (err) {
    send(res, 500, { error: { code: 'internal', message: err.message } });
  }
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(`ready ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => Promise.all([pool.end(), redis.quit()]).then(() => process.exit(0))));
