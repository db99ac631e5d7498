// The bench's fake outside world, in its own process so its CPU is not the service's:
//   - a network: POST …/{page}/feed answers { id } and GET …/{id} answers { permalink_url },
//     each after NETWORK_DELAY_MS (the Graph API shapes the Facebook adapter reads);
//   - webhook receivers: POST /hooks/{n} answers 200, except every 20th (n % 20 == 0) answering
//     500 and every 20th from 10 (n % 20 == 10) hanging HANG_MS before its 200 (10% unhealthy);
//   - GET /stats: counts and, per receiver, the time of its first attempt (epoch ms); how many
//     distinct (page, body) publishes and how many of them came more than once (a post published
//     twice); how many distinct Service-Event-Id values the receivers acknowledged;
//     POST /reset clears them.
// Started by bench/run.mjs: `node bench/lib/fake-network.mjs <port>`; prints "ready" on stdout.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
const NETWORK_DELAY_MS = Number(process.env.NETWORK_DELAY_MS ?? 50);
const HANG_MS = Number(process.env.HANG_MS ?? 3000);

let published = 0;
let permalinks = 0;
let attempts = 0;
let firstAttempt = new Map();
let feeds = new Map();
let eventIds = new Set();

export function receiverKind(n) {
  if (n % 20 === 0) return 'failing';
  if (n % 20 === 10) return 'hanging';
  return 'healthy';
}

const json = (res, status, body) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const url = req.url ?? '/';
    const path = url.split('?')[0];
    if (path.startsWith('/hooks/')) {
      const n = Number(path.slice('/hooks/'.length));
      attempts += 1;
      if (!firstAttempt.has(n)) firstAttempt.set(n, Date.now());
      const kind = receiverKind(n);
      if (kind === 'failing') return json(res, 500, { error: 'receiver failing' });
      const eventId = req.headers['service-event-id'];
      if (typeof eventId === 'string') eventIds.add(eventId);
      if (kind === 'hanging') return void setTimeout(() => json(res, 200, { ok: true }), HANG_MS);
      return json(res, 200, { ok: true });
    }
    if (path === '/stats') {
      let duplicates = 0;
      for (const n of feeds.values()) if (n > 1) duplicates += 1;
      return json(res, 200, {
        published,
        permalinks,
        attempts,
        firstAttempt: Object.fromEntries(firstAttempt),
        distinctPublishes: feeds.size,
        duplicatePublishes: duplicates,
        eventsAcknowledged: eventIds.size,
      });
    }
    if (path === '/reset') {
      published = permalinks = attempts = 0;
      firstAttempt = new Map();
      feeds = new Map();
      eventIds = new Set();
      return json(res, 200, { ok: true });
    }
    setTimeout(() => {
      if (req.method === 'POST' && path.endsWith('/feed')) {
        published += 1;
        const key = `${path}|${Buffer.concat(chunks).toString()}`;
        feeds.set(key, (feeds.get(key) ?? 0) + 1);
        const page = path.split('/').slice(-2)[0];
        return json(res, 200, { id: `${page}_${published}${Math.random().toString(36).slice(2, 8)}` });
      }
      if (req.method === 'GET') {
        permalinks += 1;
        return json(res, 200, { permalink_url: `https://fake.example${path}` });
      }
      json(res, 404, { error: { message: `No fake for ${req.method} ${path}`, code: 100 } });
    }, NETWORK_DELAY_MS);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1', () => console.log(`ready ${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
