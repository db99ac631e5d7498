import { Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import IORedis, { Redis } from 'ioredis';
import { AppConfig } from '@/config/config';

export const REDIS = Symbol('REDIS');
export const InjectRedis = (): ParameterDecorator => Inject(REDIS);

@Injectable()
class RedisCloser implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}
  /** QUIT when connected; otherwise (Redis unreachable) stop the reconnect loop at once. */
  async onApplicationShutdown(): Promise<void> {
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => undefined);
    if (this.redis.status !== 'end') this.redis.disconnect();
  }
}

/** One shared ioredis client for the service's own keys (rate limits, locks, sandbox state). */
@Global()
@Module({
  providers: [
    {
      provide: REDIS,
      inject: [AppConfig],
      useFactory: (config: AppConfig): Redis =>
        new IORedis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false }),
    },
    RedisCloser,
  ],
  exports: [REDIS],
})
export class RedisModule {}

/** Namespaces a Redis key with the configured prefix (tests run side by side on one Redis). */
export function redisKey(config: AppConfig, ...parts: string[]): string {
  return [config.redisPrefix, ...parts].join(':');
}
