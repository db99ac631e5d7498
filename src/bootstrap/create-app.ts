import type { INestApplicationContext } from '@nestjs/common';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import express, { NextFunction, RequestHandler, Response } from 'express';
import { Logger, PinoLogger } from 'nestjs-pino';
import { AppModule } from '../app.module';
import { AuthGuard } from '../common/auth/auth.guard';
import { ApiExceptionFilter, sendError } from '../common/errors/api-exception.filter';
import { bodyReadError } from '../common/errors/error-envelope';
import { answerClientErrorsWithEnvelope } from '../common/errors/http-client-errors';
import { requestLineLogger } from '../common/logging/request-line';
import { RequestLogMiddleware } from '../common/logging/request-log.middleware';
import { httpMetrics, mountOperatorEndpoints } from '../common/metrics/operator';
import { createValidationPipe } from '../common/errors/validation';
import type { ServiceRequest } from '../common/request/request-context';
import { rejectNulCharacters } from '../common/request/reject-nul.middleware';
import { requestIdMiddleware } from '../common/request/request-id.middleware';
import { AppConfig } from '../config/config';
import { migrate } from '../database/migrate';
import { isUploadPut } from '../modules/media/media-files.controller';
import { RouteGroupsExpressAdapter } from './route-groups';
import { setupSwagger } from './swagger';

async function loadSwaggerMetadata(): Promise<void> {
  try {
    // Written by scripts/gen-swagger-metadata.mjs (the @nestjs/swagger plugin's output).
    const file = '../metadata';
    const mod = (await import(file)) as { default: () => Promise<Record<string, unknown>> };
    await SwaggerModule.loadPluginMetadata(mod.default);
  } catch {
    // Without it the document still lists every route, only with thinner schemas.
  }
}

/** A body parser whose every failure becomes the one body error (bodyReadError): a 4xx, never a 5xx. */
function readBody(parse: RequestHandler): RequestHandler {
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => next(err === undefined ? undefined : bodyReadError(err)));
}

function exceptUploadPut(parse: RequestHandler): RequestHandler {
  return (req, res, next) => (isUploadPut(req) ? next() : parse(req, res, next));
}

function identifyCaller(guard: AuthGuard, rateLimit: boolean): RequestHandler {
  return (req, res, next) => {
    guard.identify(req as ServiceRequest, res, { rateLimit }).then(() => next(), next);
  };
}

/** Builds the HTTP application (api or all role). Used by main.ts and by the e2e tests. */
export async function createApp(config: AppConfig): Promise<NestExpressApplication> {
  if (config.migrateOnStart) await migrate(config.databaseUrl);
  await loadSwaggerMetadata();
  // The simulators' routes behind one layer (route-groups.ts).
  const adapter = new RouteGroupsExpressAdapter(['/sandbox']);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), adapter, {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.use(requestIdMiddleware);
  // The request's log line and logging context, first: every request but /health gets its one line,
  // the refusals answered before the routes (below) included.
  const pino = await app.resolve(PinoLogger); // transient; building one also sets PinoLogger.root
  app.use(requestLineLogger(pino, PinoLogger.root));
  app.use(httpMetrics);
  // /metrics and /queues, behind OPERATOR_TOKEN (off without one).
  mountOperatorEndpoints(app, config);
  // One request-log row per /v1 request, refusals before the body is read included.
  const requestLog = app.get(RequestLogMiddleware);
  app.use('/v1', (req: ServiceRequest, res: Response, next: NextFunction) => requestLog.use(req, res, next));
  // Who is calling, before any body is read: without a valid key the answer is 401 whatever the
  // body; with one, the rate limit is applied and its headers set, so even a malformed body's 400
  // carries them. /mcp only authenticates here (its tools are rate-limited as REST calls).
  const guard = app.get(AuthGuard);
  app.use('/v1', identifyCaller(guard, true));
  app.use('/mcp', identifyCaller(guard, false));
  // The upload PUT streams its body itself, after checking the signed URL (media-files.controller).
  app.use(
    exceptUploadPut(
      readBody(express.json({ limit: config.bodyLimit, type: ['application/json', 'application/*+json'] })),
    ),
  );
  app.use(exceptUploadPut(readBody(express.urlencoded({ extended: false, limit: config.bodyLimit }))));
  app.use(rejectNulCharacters);
  const bodyErrors = new NestLogger('BodyParser');
  // Failures before the routes (a refused key, an unreadable body, a NUL character) get the envelope too.
  app.use((err: unknown, req: ServiceRequest, res: Response, next: NextFunction) =>
    err ? sendError(err, req, res, config.docsBaseUrl, bodyErrors) : next(),
  );
  app.useGlobalFilters(new ApiExceptionFilter(config));
  answerClientErrorsWithEnvelope(app.getHttpServer(), config.docsBaseUrl, PinoLogger.root);
  app.useGlobalPipes(createValidationPipe());
  app.enableShutdownHooks();
  setupSwagger(app, config);
  return app;
}

/** The worker role: no HTTP server, only processors and schedulers. */
export async function createWorker(config: AppConfig): Promise<INestApplicationContext> {
  if (config.migrateOnStart) await migrate(config.databaseUrl);
  const ctx = await NestFactory.createApplicationContext(AppModule.forRoot(config), { bufferLogs: true });
  ctx.useLogger(ctx.get(Logger));
  ctx.enableShutdownHooks();
  return ctx;
}
