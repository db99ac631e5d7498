import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { QUEUES } from '@/common/queue/jobs';
import { QueueService } from '@/common/queue/queue.service';
import type { AppConfig } from '@/config/config';
import { httpDuration, httpRequests } from './metrics';
import { MetricsService } from './metrics.service';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** `Authorization: Bearer <token>`, or Basic with the token as the password (what a browser sends). */
export function isOperator(authorization: string | undefined, token: string): boolean {
  if (!authorization) return false;
  const [scheme, value = ''] = authorization.split(' ', 2);
  let given: string | undefined;
  if (/^bearer$/i.test(scheme ?? '')) given = value.trim();
  else if (/^basic$/i.test(scheme ?? '')) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    given = decoded.slice(decoded.indexOf(':') + 1);
  }
  return given !== undefined && timingSafeEqual(digest(given), digest(token));
}

function refuse(res: Response): void {
  res
    .status(401)
    .set('WWW-Authenticate', 'Basic realm="operator", charset="UTF-8"')
    .json({
      error: { code: 'invalid_api_key', message: 'An operator token is required (OPERATOR_TOKEN).' },
      message: 'An operator token is required (OPERATOR_TOKEN).',
    });
}

export function operatorOnly(token: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) =>
    isOperator(req.headers.authorization, token) ? next() : refuse(res);
}

/** Counts every answered request by route template (unmatched routes share one label). */
export const httpMetrics: RequestHandler = (req, res, next) => {
  const end = httpDuration.startTimer();
  res.once('finish', () => {
    const route = (req as { route?: { path?: unknown } }).route?.path;
    const labels = {
      method: req.method,
      route: typeof route === 'string' ? `${req.baseUrl}${route}` : 'unmatched',
      status: String(res.statusCode),
    };
    httpRequests.inc(labels);
    end(labels);
  });
  next();
};

/**
 * Operator endpoints on the HTTP app, only when OPERATOR_TOKEN is set (unset, the production
 * default, leaves both off): GET /metrics (Prometheus text) and the bull-board UI at /queues.
 */
export function mountOperatorEndpoints(app: INestApplication, config: AppConfig): void {
  const token = config.operator.token;
  if (!token) return;
  const metrics = app.get(MetricsService);
  app.use('/metrics', operatorOnly(token), (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' || (req.path !== '/' && req.path !== '')) return next();
    metrics.render().then((text) => res.type(metrics.contentType).send(text), next);
  });
  const board = new ExpressAdapter();
  board.setBasePath('/queues');
  const queues = app.get(QueueService);
  createBullBoard({ queues: QUEUES.map((name) => new BullMQAdapter(queues.queue(name))), serverAdapter: board });
  app.use('/queues', operatorOnly(token), board.getRouter() as RequestHandler);
}

/** The worker role has no HTTP server: /metrics on METRICS_PORT instead (same token); resolves once listening. */
export async function startWorkerMetricsServer(
  metrics: MetricsService,
  config: AppConfig,
): Promise<Server | undefined> {
  const { token, metricsPort } = config.operator;
  if (!token || !metricsPort) return undefined;
  const logger = new Logger('Metrics');
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    if (!isOperator(req.headers.authorization, token)) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="operator"' }).end();
      return;
    }
    metrics.render().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.contentType }).end(text),
      (err: Error) => {
        logger.warn({ err: err.message }, 'Metrics failed');
        res.writeHead(500).end();
      },
    );
  });
  // A port already taken fails the worker's start (before "Worker started"), naming the setting.
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new Error(`METRICS_PORT ${metricsPort} cannot be listened on (${err.code ?? err.message})`)),
    );
    server.listen(metricsPort, resolve);
  });
  logger.log(`Worker metrics on :${metricsPort}/metrics`);
  return server;
}
