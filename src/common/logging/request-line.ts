import type { NextFunction, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import type { Options } from 'pino-http';
import type { Logger } from 'pino';
import type { AppConfig } from '@/config/config';
import type { ServiceRequest } from '../request/request-context';
import { redactUrl } from './redact-url';

/** The request logger's pino options (the one root logger nestjs-pino builds through pino-http). */
export function requestLoggerOptions(config: Pick<AppConfig, 'logLevel'>): Options {
  return {
    level: config.logLevel,
    genReqId: (req) => (req as unknown as ServiceRequest).id,
    redact: [
      'req.headers.authorization',
      'req.headers.cookie',
      // A hosted page's address (with its token) travels as the Referer of the next request.
      'req.headers.referer',
      'req.headers["idempotency-key"]',
      'res.headers["set-cookie"]',
    ],
    autoLogging: { ignore: (req) => (req.url ?? '').startsWith('/health') },
    // Nothing before authentication; the line written at the end carries the workspace.
    customProps: (req) => {
      const { auth, caller } = req as unknown as ServiceRequest;
      const workspaceId = auth?.workspaceId ?? caller?.workspaceId;
      return (workspaceId === undefined ? undefined : { workspaceId }) as object;
    },
    // One short line per request: id, method, path with a redacted query (URLs carry page tokens,
    // OAuth codes and upload signatures) and status, never headers or bodies (serialising whole
    // request/response objects cost a fifth of a cheap request's CPU). Read from the request and
    // response themselves: pino-http's wrapping would first copy both into its standard shape
    // (headers included) only for these to keep three fields of it.
    wrapSerializers: false,
    serializers: {
      req: (req: { id?: unknown; method?: string; originalUrl?: string; url?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.originalUrl || req.url),
      }),
      // The standard serializer's rule: no status before the headers are sent (an aborted request).
      res: (res: { headersSent?: boolean; statusCode?: number }) => ({
        statusCode: res.headersSent ? res.statusCode : null,
      }),
    },
    quietReqLogger: true,
  };
}

/**
 * The request's log line and logging context, as pino-http wrote them through nestjs-pino's
 * middleware (which this replaces: `forRoutes: []` in AppModule), without its three child loggers
 * per request: the same root logger writes the same line when the response finishes, closes or
 * fails (`request completed`, `request aborted`, `request errored`; reqId, req, workspaceId, res,
 * responseTime in that order; none for /health), and the rest of the request runs in nestjs-pino's
 * context with the `reqId` binding, so a Nest Logger line written during it carries the id.
 * Mounted right after the request id (create-app.ts): a request answered in front of the routes
 * (a refused key, the rate limit, an unreadable, too large or NUL-holding body, the operator
 * endpoints, Swagger) gets its one line too. The workspace is the key's once the key is known,
 * refused or not (`req.caller` before the guard's `req.auth`).
 */
export function requestLineLogger(
  context: Pick<PinoLogger, 'runInContext'>,
  root: Logger,
): (req: ServiceRequest, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const startedAt = Date.now();
    let done = false;
    const finished = (err?: unknown): void => {
      if (done) return;
      done = true;
      if (!root.isLevelEnabled('info')) return;
      const workspaceId = req.auth?.workspaceId ?? req.caller?.workspaceId;
      const responseTime = Date.now() - startedAt;
      const line: Record<string, unknown> = { reqId: req.id, req };
      if (workspaceId !== undefined) line.workspaceId = workspaceId;
      line.res = res;
      const error = err || (res as { err?: unknown }).err;
      if (error || res.statusCode >= 500) {
        line.err = error || new Error(`failed with status code ${res.statusCode}`);
        line.responseTime = responseTime;
        root.info(line, 'request errored');
        return;
      }
      line.responseTime = responseTime;
      root.info(line, !req.readableAborted && res.writableEnded ? 'request completed' : 'request aborted');
    };
    if (!(req.url ?? '').startsWith('/health')) {
      res.on('close', () => finished());
      res.on('finish', () => finished());
    }
    res.on('error', finished);
    context.runInContext(next, { bindings: { reqId: req.id } });
  };
}

/** A whole request line at the packet's start, else its method and as much of the path as it shows. */
const REQUEST_LINE = /^([A-Z]{1,20}) (\/\S{0,8192}) HTTP\/1\.[01]\r?\n|^([A-Z]{1,20}) (\/[^\s?#]{0,2048})/;

/**
 * The line of a request Node's HTTP parser refused (answered by http-client-errors.ts, no Express
 * request made): the line's fields with the status and the id it answered, the method and URL as
 * far as the packet shows them (no query unless its request line is whole; none when it does not
 * start with one), a response time of 0 (the parser refuses as the bytes arrive).
 */
export function logRefusedPacket(root: Logger, reqId: string, statusCode: number, packet?: Buffer): void {
  if (!root.isLevelEnabled('info')) return;
  const start = packet && REQUEST_LINE.exec(packet.toString('latin1', 0, 8300));
  const url = start?.[2] ?? start?.[4];
  if (url?.startsWith('/health')) return;
  const req = { id: reqId, method: start?.[1] ?? start?.[3], url };
  root.info({ reqId, req, res: { headersSent: true, statusCode }, responseTime: 0 }, 'request completed');
}
