import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildUrl, forwardToRest, segment, toToolResult } from './rest-forwarder';

describe('rest-forwarder', () => {
  let server: Server;
  let baseUrl: string;
  let seen: { method?: string; url?: string; headers: IncomingHttpHeaders; body: string }[];
  let reply: { status: number; headers?: Record<string, string>; body: string };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen = [];
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('should forward the caller key, the Idempotency-Key and the JSON body', async () => {
    reply = { status: 201, body: '{"id":"p1","state":"draft"}' };
    const result = await forwardToRest(
      { authorization: 'Bearer svc_live_x', baseUrl },
      { method: 'POST', path: '/v1/posts', body: { content: 'hi', accountIds: ['a'] }, idempotencyKey: 'k-1' },
    );
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/posts', body: '{"content":"hi","accountIds":["a"]}' });
    expect(seen[0].headers).toMatchObject({
      authorization: 'Bearer svc_live_x',
      'idempotency-key': 'k-1',
      'content-type': 'application/json',
    });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ id: 'p1', state: 'draft' });
  });

  it('should send no body, no content type and no Idempotency-Key on a plain read', async () => {
    reply = { status: 200, body: '{"events":[]}' };
    await forwardToRest(
      { authorization: 'Bearer k', baseUrl },
      { method: 'GET', path: '/v1/events', query: { page: 2, type: 'post.failed', limit: undefined } },
    );
    expect(seen[0].url).toBe('/v1/events?page=2&type=post.failed');
    expect(seen[0].headers['content-type']).toBeUndefined();
    expect(seen[0].headers['idempotency-key']).toBeUndefined();
  });

  it('should map an error envelope to isError with code, message, request id, details and Retry-After', async () => {
    reply = {
      status: 429,
      headers: { 'retry-after': '12', 'x-request-id': 'req_header' },
      body: JSON.stringify({
        error: {
          code: 'rate_limit_exceeded',
          message: 'Too many requests.',
          docsUrl: 'http://x/errors#rate_limit_exceeded',
          requestId: 'req_abc',
        },
        message: 'Too many requests.',
      }),
    };
    const result = await forwardToRest({ authorization: 'Bearer k', baseUrl }, { method: 'GET', path: '/v1/posts' });
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toBe(
      'rate_limit_exceeded: Too many requests. (requestId: req_abc)',
    );
    expect(JSON.parse((result.content[1] as { text: string }).text)).toEqual({
      error: {
        code: 'rate_limit_exceeded',
        message: 'Too many requests.',
        docsUrl: 'http://x/errors#rate_limit_exceeded',
        requestId: 'req_abc',
      },
      status: 429,
      retryAfterSeconds: 12,
    });
  });

  it('should map a non-envelope failure to internal_error with the X-Request-Id header', () => {
    const result = toToolResult(502, new Headers({ 'x-request-id': 'req_h' }), 'Bad gateway');
    expect((result.content[0] as { text: string }).text).toBe(
      'internal_error: Unexpected HTTP 502 from the service. (requestId: req_h)',
    );
  });

  it('should answer internal_error when the service cannot be reached', async () => {
    const result = await forwardToRest(
      { authorization: 'Bearer k', baseUrl: 'http://127.0.0.1:1' },
      { method: 'GET', path: '/v1/posts' },
    );
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/^internal_error: The service did not answer/);
  });

  it('should keep ids inside their path segment', () => {
    expect(buildUrl('http://h:1', { method: 'GET', path: `/v1/posts/${segment('../../v1/api-keys')}/retry` })).toBe(
      'http://h:1/v1/posts/..%2F..%2Fv1%2Fapi-keys/retry',
    );
    expect(buildUrl('http://h:1', { method: 'GET', path: `/v1/posts/${segment('..')}/retry` })).toBe(
      'http://h:1/v1/posts/.._/retry',
    );
    expect(buildUrl('http://h:1', { method: 'GET', path: `/v1/posts/${segment('a?b#c')}` })).toBe(
      'http://h:1/v1/posts/a%3Fb%23c',
    );
  });
});
