import { DynamicModule, Module, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { AuthModule } from './common/auth/auth.module';
import { CryptoModule } from './common/crypto/crypto.module';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { logDestination } from './common/logging/log-destination';
import { redactUrl } from './common/logging/redact-url';
import { MetricsModule } from './common/metrics/metrics.module';
import { RequestLoggingModule } from './common/logging/logging.module';
import { OutboxModule } from './common/outbox/outbox.module';
import { QueueModule } from './common/queue/queue.module';
import { RedisModule } from './common/redis/redis.module';
import type { ServiceRequest } from './common/request/request-context';
import { AppConfig } from './config/config';
import { ConfigModule } from './config/config.module';
import { dataSourceOptions } from './database/data-source';
import { FEATURE_MODULES } from './feature-modules';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    const imports: (Type | DynamicModule)[] = [
      ConfigModule.forRoot(config),
      LoggerModule.forRoot({
        pinoHttp: [
          {
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
            // Nothing before authentication (pino-http then skips a child logger per request); the
            // line written at the end carries the workspace.
            customProps: (req) => {
              const workspaceId = (req as unknown as ServiceRequest).auth?.workspaceId;
              return (workspaceId === undefined ? undefined : { workspaceId }) as object;
            },
            // One short line per request: id, method, path with a redacted query (URLs carry page tokens,
            // OAuth codes and upload signatures) and status, never headers or bodies (serialising whole
            // request/response objects cost a fifth of a cheap request's CPU).
            serializers: {
              req: (req: { id?: unknown; method?: string; url?: string; raw?: { originalUrl?: string } }) => ({
                id: req.id,
                method: req.method,
                url: redactUrl(req.raw?.originalUrl ?? req.url),
              }),
              res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
            },
            quietReqLogger: true,
          },
          // Lines go out asynchronously and in batches (log-destination.ts): the request path does
          // not wait for a write(2) of its line, and one write carries many lines.
          logDestination(),
        ],
      }),
      TypeOrmModule.forRoot({ ...dataSourceOptions(config.databaseUrl, config.dbPoolSize), migrationsRun: false }),
      RedisModule,
      CryptoModule,
      QueueModule,
      OutboxModule,
      AuthModule,
      IdempotencyModule,
      RequestLoggingModule,
      MetricsModule,
      ...FEATURE_MODULES,
    ];
    return { module: AppModule, imports };
  }
}
