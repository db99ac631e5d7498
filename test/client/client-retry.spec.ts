import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collect, SpsApiError, SpsClient } from '../../client/src';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Handler = (req: Seen, res: ServerResponse, n: number) => void;

const envelope = (code: string, message: string, requestId: string, details?: Record<string, unknown>) =>
  JSON.stringify({ error: { code, message, docsUrl: `http://x/errors#${code}`, requestId, details }, message });

describe('SpsClient retries, errors and pagination (against a local HTTP server)', () => {
  let server: Server;
  let baseUrl: string;
  let seen: Seen[];
  let handler: Handler;
  let delays: number[];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const s = { method: req.method!, url: req.url!, headers: req.headers, body };
        seen.push(s);
        handler(s, res, seen.length);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen = [];
    delays = [];
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const client = (options: Partial<ConstructorParameters<typeof SpsClient>[0]> = {}) =>
    new SpsClient({ apiKey: 'svc_live_test', baseUrl, sleep: async (ms) => void delays.push(ms), ...options });
  const json = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  };

  it('should wait for Retry-After on 429 and then answer the retried response', async () => {
    handler = (_req, res, n) =>
      n === 1
        ? json(res, 429, envelope('rate_limit_exceeded', 'Slow down.', 'req_1'), { 'retry-after': '7' })
        : json(res, 200, '{"profiles":[],"total":0}');
    const result = await client().profiles.list();
    expect(result).toEqual({ profiles: [], total: 0 });
    expect(seen).toHaveLength(2);
    expect(delays).toEqual([7000]);
    expect(seen[0].headers.authorization).toBe('Bearer svc_live_test');
  });

  it('should really sleep for Retry-After seconds with the default timer', async () => {
    handler = (_req, res, n) =>
      n === 1
        ? json(res, 429, envelope('rate_limit_exceeded', 'Slow down.', 'req_1'), { 'retry-after': '1' })
        : json(res, 200, '{}');
    const started = Date.now();
    await new SpsClient({ apiKey: 'svc_live_test', baseUrl }).profiles.current();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(seen).toHaveLength(2);
  });

  it('should retry a write on 5xx with the same auto-generated Idempotency-Key and body', async () => {
    handler = (_req, res, n) =>
      n < 3
        ? json(res, n === 1 ? 503 : 500, envelope('internal_error', 'Oops.', `req_${n}`))
        : json(res, 201, '{"id":"p1","state":"draft"}');
    const result = await client().posts.create({ content: 'Hello', accountIds: ['a1'] });
    expect(result).toEqual({ id: 'p1', state: 'draft' });
    expect(seen).toHaveLength(3);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(new Set(seen.map((s) => s.body))).toEqual(new Set(['{"content":"Hello","accountIds":["a1"]}']));
    expect(delays).toHaveLength(2);
    expect(delays[1]).toBeGreaterThan(0);
  });

  it("should send the caller's Idempotency-Key, and a new generated key per write call", async () => {
    handler = (_req, res) => json(res, 200, '{"post":{"id":"p1","status":"queued"}}');
    await client().posts.retry('p1', { idempotencyKey: 'my-key-1' });
    await client().posts.retry('p1');
    await client().posts.retry('p1');
    expect(seen.map((s) => s.url)).toEqual(['/v1/posts/p1/retry', '/v1/posts/p1/retry', '/v1/posts/p1/retry']);
    expect(seen[0].headers['idempotency-key']).toBe('my-key-1');
    expect(seen[1].headers['idempotency-key']).not.toBe(seen[2].headers['idempotency-key']);
  });

  it('should not add an Idempotency-Key to reads', async () => {
    handler = (_req, res) => json(res, 200, '{}');
    await client({ profileId: 'prof-1' }).events.list({ type: 'post.failed', page: 2 });
    expect(seen[0].headers['idempotency-key']).toBeUndefined();
    expect(seen[0].url).toBe('/v1/events?profileId=prof-1&type=post.failed&page=2');
  });

  it('should throw SpsApiError with code, status, requestId and details, without retrying a 4xx', async () => {
    handler = (_req, res) =>
      json(
        res,
        403,
        envelope('insufficient_permission', "This API key lacks the 'audit:read' permission.", 'req_abc', {
          required: 'audit:read',
        }),
      );
    const error = await client()
      .events.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpsApiError);
    expect(error).toMatchObject({
      code: 'insufficient_permission',
      status: 403,
      requestId: 'req_abc',
      details: { required: 'audit:read' },
      retryable: false,
    });
    expect(String(error)).toBe("insufficient_permission: This API key lacks the 'audit:read' permission. (req_abc)");
    expect(seen).toHaveLength(1);
  });

  it('should give up after maxRetries and throw the last error', async () => {
    handler = (_req, res, n) =>
      json(res, 503, envelope('service_unavailable', 'Down.', `req_${n}`), { 'retry-after': '1' });
    const error = (await client({ maxRetries: 2 })
      .profiles.list()
      .catch((e: unknown) => e)) as SpsApiError;
    expect(seen).toHaveLength(3);
    expect(error).toMatchObject({
      code: 'service_unavailable',
      status: 503,
      requestId: 'req_3',
      retryable: true,
      retryAfter: 1,
    });
    expect(delays).toEqual([1000, 1000]);
  });

  it('should not wait for a Retry-After longer than maxRetryAfterMs', async () => {
    handler = (_req, res) =>
      json(res, 429, envelope('rate_limit_exceeded', 'Slow down.', 'req_1'), { 'retry-after': '3600' });
    await expect(client().profiles.list()).rejects.toMatchObject({ code: 'rate_limit_exceeded', status: 429 });
    expect(seen).toHaveLength(1);
  });

  it('should retry 409 idempotency_key_in_use but not 409 idempotency_key_reused', async () => {
    handler = (_req, res, n) =>
      n === 1
        ? json(res, 409, envelope('idempotency_key_in_use', 'Busy.', 'req_1'), { 'retry-after': '1' })
        : json(res, 201, '{"id":"p"}');
    await client().posts.create({ content: 'x', accountIds: ['a'] });
    expect(seen).toHaveLength(2);
    seen = [];
    handler = (_req, res) => json(res, 409, envelope('idempotency_key_reused', 'Reused.', 'req_2'));
    await expect(client().posts.create({ content: 'x', accountIds: ['a'] })).rejects.toMatchObject({
      code: 'idempotency_key_reused',
      status: 409,
    });
    expect(seen).toHaveLength(1);
  });

  it('should retry a read whose connection failed, then throw network_error when it keeps failing', async () => {
    handler = (_req, res, n) => (n === 1 ? res.socket!.destroy() : json(res, 200, '{"ok":true}'));
    expect(await client().profiles.current()).toEqual({ ok: true });
    expect(seen).toHaveLength(2);
    const error = (await new SpsClient({
      apiKey: 'k',
      baseUrl: 'http://127.0.0.1:1',
      maxRetries: 1,
      sleep: async () => undefined,
    }).profiles
      .list()
      .catch((e: unknown) => e)) as SpsApiError;
    expect(error).toMatchObject({ code: 'network_error', status: 0 });
  });

  it('should map a non-envelope error body to a typed error carrying X-Request-Id', async () => {
    handler = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain', 'x-request-id': 'req_hdr' });
      res.end('nope');
    };
    await expect(client().profiles.get('x')).rejects.toMatchObject({
      code: 'http_error',
      status: 404,
      requestId: 'req_hdr',
    });
  });

  it('should iterate every item of an offset list until hasMore is false', async () => {
    handler = (req, res) => {
      const url = new URL(req.url, baseUrl);
      const page = Number(url.searchParams.get('page'));
      const limit = Number(url.searchParams.get('limit'));
      const all = Array.from({ length: 5 }, (_, i) => ({ id: `e${i + 1}`, type: 'post.created' }));
      json(
        res,
        200,
        JSON.stringify({
          events: all.slice((page - 1) * limit, page * limit),
          page,
          limit,
          total: 5,
          hasMore: page * limit < 5,
        }),
      );
    };
    const events = await collect(client().events.iterate({ limit: 2, type: 'post.created' }));
    expect(events.map((e) => e.id)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
    expect(seen.map((s) => s.url)).toEqual([
      '/v1/events?limit=2&type=post.created&page=1',
      '/v1/events?limit=2&type=post.created&page=2',
      '/v1/events?limit=2&type=post.created&page=3',
    ]);
    expect(await collect(client().events.iterate({ limit: 2 }), 3)).toHaveLength(3);
  });

  it('should iterate a cursor list until nextCursor is null', async () => {
    handler = (req, res) => {
      const cursor = new URL(req.url, baseUrl).searchParams.get('cursor');
      const pages: Record<string, { comments: { id: string }[]; nextCursor: string | null }> = {
        start: { comments: [{ id: 'c1' }, { id: 'c2' }], nextCursor: 'cur2' },
        cur2: { comments: [{ id: 'c3' }], nextCursor: 'cur3' },
        cur3: { comments: [], nextCursor: null },
      };
      json(res, 200, JSON.stringify(pages[cursor ?? 'start']));
    };
    const comments = await collect(client().comments.iterate({ postId: 'p1' }));
    expect(comments.map((c) => c.id)).toEqual(['c1', 'c2', 'c3']);
    expect(seen.map((s) => s.url)).toEqual([
      '/v1/comments?postId=p1',
      '/v1/comments?postId=p1&cursor=cur2',
      '/v1/comments?postId=p1&cursor=cur3',
    ]);
  });
});
