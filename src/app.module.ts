import { DynamicModule, Module, Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { AuthModule } from './common/auth/auth.module';
import { CryptoModule } from './common/crypto/crypto.module';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { idempotentWriteRoutes } from './common/idempotency/write-routes';
import { logDestination } from './common/logging/log-destination';
import { requestLoggerOptions } from './common/logging/request-line';
import { MetricsModule } from './common/metrics/metrics.module';
import { RequestLoggingModule } from './common/logging/logging.module';
import { OutboxModule } from './common/outbox/outbox.module';
import { QueueModule } from './common/queue/queue.module';
import { RedisModule } from './common/redis/redis.module';
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
          requestLoggerOptions(config),
          // Lines go out asynchronously and in batches (log-destination.ts): the request path does
          // not wait for a write(2) of its line, and one write carries many lines.
          logDestination(),
        ],
        // Its per-request middleware is replaced by requestLineLogger (create-app.ts): the same
        // line and logging context, without three child loggers per request.
        forRoutes: [],
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
    return idempotentWriteRoutes({ module: AppModule, imports });
  }
}
