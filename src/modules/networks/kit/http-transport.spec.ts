import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PlatformError } from './adapter';
import { answerError, callNetwork, type NetworkReply } from './http';

/** The kit's HTTP client on its real transport (undici.request), against a local server: what is sent, read and classified. */
describe('kit HTTP client transport', () => {
  const seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[] = [];
  let route: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() });
      route(req, res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => (seen.length = 0));

  const mapped: NetworkReply[] = [];
  const mapError = (reply: NetworkReply) => {
    mapped.push(reply);
    return new PlatformError(`HTTP ${reply.status}`, 'network_rate_limited', true);
  };
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: PlatformError) => e,
    );

  it('should send the method, headers and body, and read the status, headers and JSON', async () => {
    route = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-restli-id': 'urn:li:share:1' });
      res.end('\ufeff{"id":"é"}');
    };
    const reply = await callNetwork(
      {
        method: 'POST',
        url: `${base}/rest/posts`,
        headers: { Authorization: 'Bearer t' },
        json: { a: 1 },
        timeoutMs: 5000,
      },
      mapError,
    );
    expect(reply).toMatchObject({ status: 200, text: '{"id":"é"}', json: { id: 'é' } });
    expect(reply.headers.get('X-RestLi-Id')).toBe('urn:li:share:1');
    expect(seen).toEqual([expect.objectContaining({ method: 'POST', url: '/rest/posts', body: '{"a":1}' })]);
    expect(seen[0].headers).toMatchObject({
      authorization: 'Bearer t',
      'content-type': 'application/json',
    });
  });

  it('should hand a failed answer with its Retry-After to the error mapper', async () => {
    route = (_req, res) => {
      res.writeHead(429, { 'retry-after': '7' });
      res.end('slow down');
    };
    const err = await failure(callNetwork({ url: `${base}/x`, timeoutMs: 5000 }, mapError));
    expect(err).toMatchObject({ category: 'network_rate_limited' });
    expect(mapped.at(-1)?.headers.get('retry-after')).toBe('7');
    expect(mapped.at(-1)?.text).toBe('slow down');
  });

  it("should not follow a redirect: the 3xx is the network's answer, failed as any other (not 5xx, 429 or 401)", async () => {
    route = (req, res) => {
      res.writeHead(req.url === '/moved' ? 302 : 200, { location: `${base}/elsewhere` });
      res.end(req.url === '/moved' ? 'moved' : '{"id":"followed"}');
    };
    const asTheKit = (reply: NetworkReply) => (mapped.push(reply), answerError(`HTTP ${reply.status}`, reply));
    const err = await failure(callNetwork({ method: 'POST', url: `${base}/moved`, timeoutMs: 5000 }, asTheKit));
    expect(err).toMatchObject({ category: 'invalid_content', retryable: false, details: { status: 302 } });
    expect(mapped.at(-1)?.headers.get('location')).toBe(`${base}/elsewhere`);
    expect(seen.map((s) => s.url)).toEqual(['/moved']);
  });

  it('should call a creating request that timed out after sending an unknown outcome', async () => {
    route = () => undefined; // never answers
    const err = await failure(
      callNetwork({ method: 'POST', url: `${base}/create`, form: { a: 'b' }, creates: true, timeoutMs: 200 }, mapError),
    );
    expect(err).toMatchObject({ category: 'unknown_outcome', retryable: false });
  });

  it('should call a creating request whose connection was lost after sending an unknown outcome', async () => {
    route = (req) => req.socket.destroy();
    const err = await failure(
      callNetwork({ method: 'POST', url: `${base}/create`, creates: true, timeoutMs: 5000 }, mapError),
    );
    expect(err).toMatchObject({ category: 'unknown_outcome', retryable: false });
  });

  it('should call a creating request refused before sending a retryable network error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failure(
      callNetwork({ method: 'POST', url: `http://127.0.0.1:${port}/create`, creates: true, timeoutMs: 5000 }, mapError),
    );
    expect(err).toMatchObject({ category: 'network_error', retryable: true });
  });

  it('should give a non-creating call that timed out a retryable network error', async () => {
    route = () => undefined;
    const err = await failure(callNetwork({ url: `${base}/read`, timeoutMs: 200 }, mapError));
    expect(err).toMatchObject({ category: 'network_error', retryable: true });
  });
});
