import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { InjectRedis, redisKey } from '@/common/redis/redis.module';
import { redisScript } from '@/common/redis/redis-script';
import { slotReleaser } from '@/common/redis/slot-release';
import { AppConfig } from '@/config/config';
import type { PlatformName } from '@/modules/networks/platform-name';

/**
 * Slots: a sorted set per network, member = holder token, score = lease expiry (Redis clock).
 * Expired leases (a worker that died holding one) are dropped before counting. Takes a slot for
 * each of the tokens ARGV[3..] in order while one is free; answers how many it took (the first n).
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local limit = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local granted = 0
for i = 3, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) or redis.call('ZCARD', KEYS[1]) < limit then
    redis.call('ZADD', KEYS[1], now + ttl, ARGV[i])
    granted = granted + 1
  else
    break
  end
end
if granted > 0 then redis.call('PEXPIRE', KEYS[1], ttl * 2) end
return granted`;

/** An acquire try waiting for its turn's script (see tryAcquire). */
interface PendingTry {
  token: string;
  resolve: (got: boolean) => void;
  reject: (err: unknown) => void;
}

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
  private readonly pending = new Map<string, PendingTry[]>();
  /** Frees a slot: the releases of one network made in the same turn (a post's targets whose answers came in together) as one ZREM. */
  private readonly release: (key: string, token: string) => Promise<unknown>;
  /** ACQUIRE: the key, the limit, the lease, then the tokens; how many were granted. */
  private readonly acquireScript: (...args: (string | number)[]) => Promise<number>;
  /** RENEW: the key, the lease, the token; 0 when the lease was lost. */
  private readonly renewScript: (...args: (string | number)[]) => Promise<number>;

  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {
    this.acquireScript = redisScript(redis, 'publishSlotsAcquire', ACQUIRE, 1);
    this.renewScript = redisScript(redis, 'publishSlotsRenew', RENEW, 1);
    this.release = slotReleaser(redis);
  }

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
      if (await this.tryAcquire(platform, key, token)) break;
      if (Date.now() - started > maxWaitMs) throw new SlotTimeoutError(platform, Date.now() - started);
      await sleep(pollMs * (0.5 + Math.random()));
    }
    const renew = setInterval(
      () => {
        this.renewScript(key, leaseMs, token).then(
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
        await this.release(key, token);
      },
    };
  }

  /**
   * One try for a slot. The tries of one network made in the same turn (a post's targets, which
   * start together) go to Redis as one script: one round trip for all of them.
   */
  private tryAcquire(platform: PlatformName, key: string, token: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      let batch = this.pending.get(key);
      if (!batch) {
        const tries: PendingTry[] = [];
        batch = tries;
        this.pending.set(key, tries);
        queueMicrotask(() => {
          this.pending.delete(key);
          const tokens = tries.map((t) => t.token);
          this.acquireScript(key, this.limitOf(platform), this.options.leaseMs, ...tokens).then(
            (granted) => tries.forEach((t, i) => t.resolve(i < granted)),
            (err: unknown) => tries.forEach((t) => t.reject(err)),
          );
        });
      }
      batch.push({ token, resolve, reject });
    });
  }

  /**
   * Runs `fn` holding one of the network's slots. The release is sent, not waited for: the slot
   * stays counted until Redis drops it (held a little longer, never shorter: the cap stays exact);
   * an acquire sent before the release reaches Redis sees the slot still taken and tries again at
   * its next poll. (Release never rejects.)
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
