import { dirname, join } from 'node:path';
import express, { type Request } from 'express';
import { type Params, PinoLogger } from 'nestjs-pino';
import { type Options, pinoHttp } from 'pino-http';
import { wrapRequestSerializer, wrapResponseSerializer } from 'pino-std-serializers';
import request from 'supertest';
import { redactUrl } from '@/common/logging/redact-url';
import { requestLineLogger, requestLoggerOptions } from '@/common/logging/request-line';

// nestjs-pino's own per-request middleware (pino-http, then its logging context), which
// requestLineLogger replaces: its logging context loaded from the package's files.
const pinoDir = dirname(require.resolve('nestjs-pino'));
/* eslint-disable @typescript-eslint/no-require-imports */
const { storage, Store } = require(join(pinoDir, 'storage.js')) as {
  storage: { run: (store: unknown, fn: () => void) => void };
  Store: new (logger: unknown) => unknown;
};
/* eslint-enable @typescript-eslint/no-require-imports */

const lines: string[] = [];
const capture = { write: (line: string) => void lines.push(line) };
const params: Params = { pinoHttp: [requestLoggerOptions({ logLevel: 'info' }), capture] };
const pino = new PinoLogger(params);

// The reference: pino-http as nestjs-pino mounted it, with the line's serializers as they were
// first written, reading pino-http's standard copies of the request and response.
const wrappedSerializers = {
  req: (req: { id?: unknown; method?: string; url?: string; raw?: { originalUrl?: string } }) => ({
    id: req.id,
    method: req.method,
    url: redactUrl(req.raw?.originalUrl ?? req.url),
  }),
  res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
};
const reference = pinoHttp(
  { ...requestLoggerOptions({ logLevel: 'info' }), wrapSerializers: true, serializers: wrappedSerializers },
  capture,
);

let seq = 0;
function app(mode: 'pino-http' | 'requestLineLogger'): express.Express {
  const a = express();
  a.use((req, _res, next) => {
    (req as Request & { id: string }).id = `req_${mode === 'pino-http' ? 'a' : 'b'}${++seq}`;
    next();
  });
  if (mode === 'pino-http') {
    a.use(reference);
    a.use((req, _res, next) => storage.run(new Store((req as Request & { allLogs: unknown[] }).allLogs.at(-1)), next));
  } else a.use(requestLineLogger(pino, PinoLogger.root) as unknown as express.RequestHandler);
  a.use(express.json());
  const authed = (req: Request) => ((req as Request & { auth: unknown }).auth = { workspaceId: 'ws_1' });
  a.get('/health', (_req, res) => void res.json({ ok: true }));
  a.get('/v1/profile', (req, res) => {
    authed(req);
    pino.warn({ detail: 1 }, 'inside the request');
    res.json({ ok: true });
  });
  a.get('/v1/posts', (_req, res) => void res.status(401).json({ error: 'no' }));
  a.post('/v1/posts', (req, res) => {
    authed(req);
    // After the body parser: the context entered before it still holds.
    pino.warn('inside a request with a body');
    res.status(201).json(req.body);
  });
  a.get('/v1/broken', (req, res) => {
    authed(req);
    res.status(503).json({ error: 'down' });
  });
  a.get('/v1/thrown', () => {
    throw new Error('boom');
  });
  a.get('/connect/callback/facebook', (_req, res) => void res.status(302).end());
  return a;
}

async function linesOf(mode: 'pino-http' | 'requestLineLogger'): Promise<string[]> {
  lines.length = 0;
  seq = 0;
  const http = request(app(mode));
  await http.get('/health').expect(200);
  await http.get('/v1/profile?page=2&api_key=SECRET').set('authorization', 'Bearer svc_live_x').expect(200);
  await http.get('/v1/posts').expect(401);
  await http.post('/v1/posts').send({ content: 'hello' }).expect(201);
  await http.get('/v1/broken').expect(503);
  await http.get('/v1/thrown').expect(500);
  await http.get('/connect/callback/facebook?code=CODE&state=STATE').expect(302);
  await http.get('/missing').expect(404);
  await new Promise((r) => setImmediate(r));
  // The same bytes up to time, duration, the id's prefix and where the generated error was created.
  return lines.map((l) =>
    l
      .replace(/"time":\d+/, '"time":0')
      .replace(/"responseTime":\d+/, '"responseTime":0')
      .replace(/"stack":"(\\.|[^"\\])*"/, '"stack":""')
      .replace(/req_[ab]/g, 'req_'),
  );
}

describe('requestLineLogger', () => {
  it('writes the lines nestjs-pino and pino-http wrote, with the request id in the logs written during a request', async () => {
    const before = await linesOf('pino-http');
    const after = await linesOf('requestLineLogger');
    expect(after).toEqual(before);
    const parsed = after.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed).toHaveLength(9);
    expect(parsed[0]).toMatchObject({ reqId: 'req_2', msg: 'inside the request', detail: 1 });
    expect(parsed[1]).toMatchObject({
      reqId: 'req_2',
      req: { id: 'req_2', method: 'GET', url: '/v1/profile?page=2&api_key=[REDACTED]' },
      workspaceId: 'ws_1',
      res: { statusCode: 200 },
      msg: 'request completed',
    });
    expect(parsed.find((l) => l.msg === 'inside a request with a body')).toMatchObject({ reqId: 'req_4' });
    expect(parsed.find((l) => (l.res as { statusCode?: number })?.statusCode === 503)).toMatchObject({
      err: { message: 'failed with status code 503' },
      msg: 'request errored',
    });
    expect(after.join('\n')).not.toMatch(/SECRET|CODE|STATE|svc_live|hello/);
  });

  it('serialises a request and a response as the standard serializers and the first ones did, unsent headers included', () => {
    const { req, res } = requestLoggerOptions({ logLevel: 'info' }).serializers as Required<Options>['serializers'];
    const raw = {
      id: 'req_1',
      method: 'GET',
      originalUrl: '/v1/posts?api_key=K',
      url: '/posts?api_key=K',
      headers: {},
    };
    expect(req(raw)).toEqual(wrapRequestSerializer(wrappedSerializers.req as never)(raw as never));
    for (const sent of [true, false]) {
      const response = { headersSent: sent, statusCode: 200, getHeaders: () => ({}) };
      expect(res(response)).toEqual(wrapResponseSerializer(wrappedSerializers.res as never)(response as never));
    }
  });
});
