import { connect } from 'node:net';
import { logDestination } from '@/common/logging/log-destination';
import { createKey, expectMalformedJson, postMalformedJson } from '@test/support/e2e-helpers';
import { createApiApp, eventually, type Tenant, type TestApp } from '@test/support/test-app';

// The app's own lines (its root logger writing to logDestination), one per request whoever answers
// it: the routes, or the middleware in front of them (create-app.ts). How the line is written is
// request-line.e2e-spec.ts's subject; that file builds the process's one root logger itself.

interface RequestLine {
  reqId: string;
  req: { id: string; method: string; url: string };
  workspaceId?: string;
  res: { statusCode: number | null };
  responseTime: number;
  msg: string;
}

describe("the service's request lines", () => {
  let t: TestApp;
  let tenant: Tenant;
  const written: string[] = [];

  beforeAll(async () => {
    // The lines the app writes to standard output, kept here instead.
    jest.spyOn(logDestination(), 'write').mockImplementation((line: string) => written.push(line) > 0);
    // An operator token: /metrics is mounted, and refuses a request without it.
    ({ t, tenant } = await createApiApp({
      env: { LOG_LEVEL: 'info', BODY_LIMIT: '1kb', OPERATOR_TOKEN: 'operator-token-of-the-tests' },
    }));
  });
  afterAll(async () => {
    await t.close();
    jest.restoreAllMocks();
  });

  /** The request lines of one response (by its X-Request-Id), once at least one is written. */
  const linesOf = async (res: { headers: Record<string, string> }): Promise<RequestLine[]> => {
    const id = res.headers['x-request-id'];
    const mine = (): RequestLine[] =>
      written.map((l) => JSON.parse(l) as Partial<RequestLine>).filter((l): l is RequestLine => l.req?.id === id);
    await eventually(async () => mine().length > 0, { timeoutMs: 10_000 });
    // Both 'finish' and 'close' have fired by the time a later request of the same client answers.
    await t.http().get('/health').expect(200);
    return mine();
  };

  const expectOneLine = async (
    res: { status: number; headers: Record<string, string> },
    method: string,
    url: string,
    workspaceId?: string,
  ): Promise<RequestLine> => {
    const lines = await linesOf(res);
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      reqId: res.headers['x-request-id'],
      req: { id: res.headers['x-request-id'], method, url },
      res: { statusCode: res.status },
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    expect(line.workspaceId).toBe(workspaceId);
    return line;
  };

  /** `bytes` sent on a socket of their own; all the server answered before it closed. */
  const rawExchange = (bytes: string): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(Number(new URL(t.url).port), '127.0.0.1', () => socket.write(bytes));
      socket.on('data', (d: Buffer) => (text += d.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });

  it('writes one line for an answered request', async () => {
    const res = await t.http().get('/v1/profile').set(tenant.auth).expect(200);
    await expectOneLine(res, 'GET', '/v1/profile', tenant.workspaceId);
  });

  it('writes one line for a request refused for its key (401), before any workspace is known', async () => {
    await expectOneLine(await t.http().get('/v1/profile').expect(401), 'GET', '/v1/profile');
    const bad = await t.http().post('/v1/profiles').set('Authorization', 'Bearer svc_live_nope').send({ name: 'x' });
    expect(bad.status).toBe(401);
    await expectOneLine(bad, 'POST', '/v1/profiles');
  });

  it("writes one line for a rate-limited request (429), with its key's workspace", async () => {
    const slow = await createKey(t, tenant, { rateLimitPerMinute: 1 });
    await t.http().get('/v1/profile').set(slow.auth).expect(200);
    const limited = await t.http().get('/v1/profile').set(slow.auth).expect(429);
    await expectOneLine(limited, 'GET', '/v1/profile', tenant.workspaceId);
  });

  it('writes one line for a body refused before the routes (400 unreadable, 400 NUL, 413 too large)', async () => {
    const malformed = await postMalformedJson(t, '/v1/profiles', tenant.auth);
    expectMalformedJson(malformed);
    await expectOneLine(malformed, 'POST', '/v1/profiles', tenant.workspaceId);
    const nul = await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'a\u0000b' });
    expect(nul.status).toBe(400);
    await expectOneLine(nul, 'POST', '/v1/profiles', tenant.workspaceId);
    const large = await t
      .http()
      .post('/v1/profiles')
      .set(tenant.auth)
      .send({ name: 'x'.repeat(2048) });
    expect(large.status).toBe(413);
    await expectOneLine(large, 'POST', '/v1/profiles', tenant.workspaceId);
  });

  it('writes one line for an unknown route, a refused operator endpoint and the OpenAPI document', async () => {
    await expectOneLine(
      await t.http().get('/v1/nothing-here').set(tenant.auth).expect(404),
      'GET',
      '/v1/nothing-here',
      tenant.workspaceId,
    );
    const metrics = await t.http().get('/metrics').expect(401);
    expect(metrics.body.error.code).toBe('invalid_api_key');
    await expectOneLine(metrics, 'GET', '/metrics');
    await expectOneLine(await t.http().get('/openapi.json').expect(200), 'GET', '/openapi.json');
  });

  it("writes one line for a request Node's HTTP parser refuses (431, 400), under the id it answered", async () => {
    const tooLarge = await t
      .http()
      .get(`/v1/posts?q=${'x'.repeat(20_000)}`)
      .set(tenant.auth);
    expect(tooLarge.status).toBe(431);
    // The path as far as the packet shows it; the query, never whole, is left out.
    await expectOneLine(tooLarge, 'GET', '/v1/posts');
    const answer = await rawExchange('NOT-HTTP\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const id = /^X-Request-Id: (\S+)\r$/im.exec(answer)?.[1];
    expect(id).toBeTruthy();
    const [line, ...others] = await linesOf({ headers: { 'x-request-id': id! } });
    expect(others).toEqual([]);
    expect(line).toMatchObject({ reqId: id, req: { id }, res: { statusCode: 400 }, msg: 'request completed' });
    expect(line.req.method).toBeUndefined();
  });

  it("writes a parser-refused request's whole request line with its query redacted", async () => {
    // A whole request line, then a header Node's parser refuses (400): the query is logged, redacted.
    const answer = await rawExchange('GET /v1/posts?limit=5&code=s3cr3t-code HTTP/1.1\r\nBad Header\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const id = /^X-Request-Id: (\S+)\r$/im.exec(answer)?.[1];
    const [line, ...others] = await linesOf({ headers: { 'x-request-id': id! } });
    expect(others).toEqual([]);
    expect(line).toMatchObject({
      req: { id, method: 'GET', url: '/v1/posts?limit=5&code=[REDACTED]' },
      res: { statusCode: 400 },
    });
    expect(written.some((l) => l.includes('s3cr3t-code'))).toBe(false);
  });

  it('writes no line for /health', async () => {
    const res = await t.http().get('/health').expect(200);
    await t.http().get('/v1/profile').set(tenant.auth).expect(200);
    await eventually(async () => written.some((l) => l.includes('"url":"/v1/profile"')), { timeoutMs: 10_000 });
    expect(written.some((l) => l.includes(res.headers['x-request-id']))).toBe(false);
  });
});
