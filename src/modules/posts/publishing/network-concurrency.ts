import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { InjectRedis, redisKey } from '@/common/redis/redis.module';
import { AppConfig } from '@/config/config';
import type { PlatformName } from '@/modules/networks/platform-name';

/**
 * Slots: a sorted set per network, member = holder token, score = lease expiry (Redis clock).
 * Expired leases (a worker that died holding one) are dropped before counting.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local limit = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) or redis.call('ZCARD', KEYS[1]) < limit then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ttl * 2)
  return 1
end
return 0`;

const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
local ok = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + ttl, ARGV[2])
redis.call('PEXPIRE', KEYS[1], ttl * 2)
return ok`;

export interface NetworkSlot {
  release(): Promise<void>;
}

export interface SemaphoreOptions {
  leaseMs: number;
  pollMs: number;
  maxWaitMs: number;
}

const DEFAULTS: SemaphoreOptions = {
  leaseMs: 60_000,
  pollMs: 150,
  maxWaitMs: 10 * 60_000,
};

/** The network stays busy: the caller gives up for now (the job fails; the post is resumed later). */
export class SlotTimeoutError extends Error {
  constructor(platform: string, waitedMs: number) {
    super(`No ${platform} publishing slot free after ${waitedMs} ms`);
    this.name = 'SlotTimeoutError';
  }
}

/**
 * A Redis counting semaphore per network. A holder renews its lease while it works; a crashed
 * holder's slot frees itself when the lease runs out.
 */
@Injectable()
export class NetworkConcurrency {
  private readonly logger = new Logger('NetworkConcurrency');
  private readonly limits = new Map<string, number>();
  private options: SemaphoreOptions = DEFAULTS;

  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {}

  /** Overrides the limit (or the timing) — operators' tuning, tests. */
  configure(platform: PlatformName, limit: number, options: Partial<SemaphoreOptions> = {}): void {
    this.limits.set(platform, limit);
    this.options = { ...this.options, ...options };
  }

  limitOf(platform: PlatformName): number {
    // Concurrent publish calls per network, across every worker process (NETWORK_CONCURRENCY).
    return this.limits.get(platform) ?? this.config.publishing.networkConcurrency;
  }

  key(platform: PlatformName): string {
    return redisKey(this.config, 'publish-slots', platform);
  }

  async acquire(platform: PlatformName): Promise<NetworkSlot> {
    const key = this.key(platform);
    const token = randomUUID();
    const { leaseMs, pollMs, maxWaitMs } = this.options;
    const started = Date.now();
    for (;;) {
      const got = (await this.redis.eval(ACQUIRE, 1, key, this.limitOf(platform), leaseMs, token)) as number;
      if (got === 1) break;
      if (Date.now() - started > maxWaitMs) throw new SlotTimeoutError(platform, Date.now() - started);
      await sleep(pollMs * (0.5 + Math.random()));
    }
    const renew = setInterval(
      () => {
        this.redis.eval(RENEW, 1, key, leaseMs, token).then(
          (ok) => ok === 0 && this.logger.warn({ platform }, 'Publishing slot lease was lost'),
          (err: Error) => this.logger.warn({ platform, err: err.message }, 'Could not renew publishing slot'),
        );
      },
      Math.max(100, Math.floor(leaseMs / 3)),
    );
    renew.unref();
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await this.redis.zrem(key, token).catch(() => 0);
      },
    };
  }

  /**
   * Runs `fn` holding one of the network's slots. The release is sent, not waited for: the slot
   * stays counted until Redis drops it (held a little longer, never shorter: the cap stays exact),
   * and this process's next acquire goes on the same connection, after it. (Release never rejects.)
   */
  async run<T>(platform: PlatformName, fn: () => Promise<T>): Promise<T> {
    const slot = await this.acquire(platform);
    try {
      return await fn();
    } finally {
      void slot.release();
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
