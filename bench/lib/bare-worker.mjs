// The same-work baseline for the pipeline scenarios: bare BullMQ + pg + fetch/undici, no
// framework, in its own process (as the service's worker is).
//   queue bare-publish, job { postId }, concurrency 5 (the service's publish concurrency):
//     queued → processing (guarded update + history row); the targets with their accounts,
//     tokens decrypted (AES-256-GCM, as SecretBox); each target at once: mark publishing with
//     the sent state, POST /{page}/feed, save the id, GET /{id} for the permalink, mark success;
//     then one transaction: post published, history row, post.published event.
//   queue bare-dispatch, job { eventId }: one INSERT … SELECT of a delivery per matching
//     subscription, then a signed undici POST per delivery (50 at a time, the service's webhook
//     concurrency), each recorded (status, code, attempts).
// Env: DATABASE_URL, REDIS_URL, BULL_PREFIX, NETWORK_URL, TOKEN_KEY (base64, key id k1),
// WEBHOOK_TIMEOUT_MS. Prints "ready" on stdout.
import { createDecipheriv, createHmac } from 'node:crypto';
import { Worker } from 'bullmq';
import pg from 'pg';
import { Agent, request } from 'undici';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
pool.on('error', () => undefined); // idle clients cut when the bench drops the database
const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const connection = { host: redisUrl.hostname, port: Number(redisUrl.port || 6379), maxRetriesPerRequest: null };
const prefix = process.env.BULL_PREFIX ?? 'bare:bull';
const network = process.env.NETWORK_URL;
const key = Buffer.from(process.env.TOKEN_KEY ?? '', 'base64');
const timeoutMs = Number(process.env.WEBHOOK_TIMEOUT_MS ?? 10_000);
const agent = new Agent({ connections: 64 });
const ACTOR = JSON.stringify({ type: 'system' });

function open(sealed) {
  const [keyId, iv, tag, data] = sealed.split(':');
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  d.setAAD(Buffer.from(keyId));
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(data, 'base64url')), d.final()]).toString('utf8');
}

async function graph(method, path, params) {
  const body = new URLSearchParams(params);
  const url = `${network}${path}${method === 'GET' ? `?${body}` : ''}`;
  const res = await fetch(url, {
    method,
    ...(method === 'POST' ? { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`network answered ${res.status}`);
  return json;
}

async function publishTarget(post, t) {
  const token = open(t.access_token_enc);
  await pool.query(
    `UPDATE post_targets SET status = 'publishing', attempts = attempts + 1, publish_state = $2, updated_at = now() WHERE id = $1`,
    [t.id, JSON.stringify({ kind: 'feed', sentAt: new Date().toISOString() })],
  );
  const { id } = await graph('POST', `/${t.platform_account_id}/feed`, { message: post.message, access_token: token });
  await pool.query(`UPDATE post_targets SET publish_state = publish_state || $2::jsonb WHERE id = $1`, [
    t.id,
    JSON.stringify({ postId: id }),
  ]);
  const { permalink_url } = await graph('GET', `/${id}`, { fields: 'permalink_url', access_token: token });
  await pool.query(
    `UPDATE post_targets SET status = 'success', external_id = $2, external_url = $3, published_at = now(), updated_at = now() WHERE id = $1`,
    [t.id, id, permalink_url],
  );
}

async function publish({ postId }) {
  const { rows } = await pool.query(
    `UPDATE posts SET state = 'processing', version = version + 1, updated_at = now() WHERE id = $1 AND state = 'queued' RETURNING *`,
    [postId],
  );
  const post = rows[0];
  if (!post) return;
  await pool.query(
    `INSERT INTO post_history (post_id, from_state, to_state, reason, actor) VALUES ($1, 'queued', 'processing', 'publishing started', $2)`,
    [postId, ACTOR],
  );
  const targets = await pool.query(
    `SELECT t.*, a.platform_account_id, a.access_token_enc FROM post_targets t JOIN social_accounts a ON a.id = t.account_id WHERE t.post_id = $1 ORDER BY t.created_at, t.id`,
    [postId],
  );
  await Promise.all(targets.rows.map((t) => publishTarget(post, t)));
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `UPDATE posts SET state = 'published', published_at = now(), version = version + 1, updated_at = now() WHERE id = $1 AND state = 'processing'`,
      [postId],
    );
    await client.query(
      `INSERT INTO post_history (post_id, from_state, to_state, reason, actor) VALUES ($1, 'processing', 'published', 'published on every target', $2)`,
      [postId, ACTOR],
    );
    await client.query(
      `INSERT INTO events (workspace_id, profile_id, type, actor, data, dispatched_at, handled_at) VALUES ($1, $2, 'post.published', $3, $4, now(), now())`,
      [post.workspace_id, post.profile_id, ACTOR, JSON.stringify({ postId, targets: targets.rows.length })],
    );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

async function deliver(d) {
  const body = JSON.stringify({ id: d.event_id, type: d.type, data: d.payload });
  const secret = open(d.secret_enc);
  const t = Math.floor(Date.now() / 1000);
  const sig = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
  let code = null;
  try {
    const res = await request(d.url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'service-signature': `t=${t},v1=${sig}` },
      dispatcher: agent,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    code = res.statusCode;
    await res.body.text();
  } catch {
    code = null;
  }
  const ok = code !== null && code >= 200 && code < 300;
  await pool.query(
    `UPDATE webhook_deliveries SET status = $2, response_code = $3, attempts = attempts + 1, last_attempt_at = now(), updated_at = now() WHERE id = $1`,
    [d.id, ok ? 'succeeded' : 'failed', code],
  );
}

async function dispatch({ eventId }) {
  const { rows } = await pool.query(
    `WITH e AS (SELECT * FROM events WHERE id = $1),
     ins AS (
       INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, type, payload, event_created_at, status)
       SELECT gen_random_uuid(), s.workspace_id, s.id, e.id, e.type, e.data, e.created_at, 'pending'
         FROM webhook_subscriptions s, e
        WHERE s.workspace_id = e.workspace_id AND s.deleted_at IS NULL AND s.is_active
        RETURNING id, subscription_id, event_id, type, payload)
     SELECT ins.*, s.url, s.secret_enc FROM ins JOIN webhook_subscriptions s ON s.id = ins.subscription_id`,
    [eventId],
  );
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < rows.length) await deliver(rows[next++]);
    }),
  );
}

new Worker('bare-publish', (job) => publish(job.data), { connection, prefix, concurrency: 5 });
new Worker('bare-dispatch', (job) => dispatch(job.data), { connection, prefix, concurrency: 5 });
console.log('ready');
process.on('SIGTERM', () => process.exit(0));
