import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import express, { NextFunction, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { AppModule } from '../app.module';
import { ApiExceptionFilter, sendError } from '../common/errors/api-exception.filter';
import { createValidationPipe } from '../common/errors/validation';
import type { ServiceRequest } from '../common/request/request-context';
import { requestIdMiddleware } from '../common/request/request-id.middleware';
import { AppConfig } from '../config/config';
import { migrate } from '../database/migrate';
import { isUploadPut } from '../modules/media/media-files.controller';
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

/** Builds the HTTP application (api or all role). Used by main.ts and by the e2e tests. */
export async function createApp(config: AppConfig): Promise<NestExpressApplication> {
  if (config.migrateOnStart) await migrate(config.databaseUrl);
  await loadSwaggerMetadata();
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.use(requestIdMiddleware);
  // The upload PUT streams its body itself, after checking the signed URL (media-files.controller).
  const json = express.json({ limit: config.bodyLimit, type: ['application/json', 'application/*+json'] });
  const urlencoded = express.urlencoded({ extended: false, limit: config.bodyLimit });
  app.use((req: ServiceRequest, res: Response, next: NextFunction) =>
    isUploadPut(req) ? next() : json(req, res, next),
  );
  app.use((req: ServiceRequest, res: Response, next: NextFunction) =>
    isUploadPut(req) ? next() : urlencoded(req, res, next),
  );
  const bodyErrors = new NestLogger('BodyParser');
  // Body-parser failures (malformed JSON, oversized bodies) get the envelope too.
  app.use((err: unknown, req: ServiceRequest, res: Response, next: NextFunction) =>
    err ? sendError(err, req, res, config.docsBaseUrl, bodyErrors) : next(),
  );
  app.useGlobalFilters(new ApiExceptionFilter(config));
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

export type AnyApp = INestApplication | INestApplicationContext;
