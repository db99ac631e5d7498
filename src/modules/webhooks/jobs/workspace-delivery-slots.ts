import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { InjectRedis, redisKey } from '@/common/redis/redis.module';
import { redisScript } from '@/common/redis/redis-script';
import { AppConfig } from '@/config/config';

/**
 * A sorted set per workspace: member = holder token, score = lease expiry (Redis clock). Expired
 * leases (a worker that died mid-delivery) are dropped before counting.
 */
const TRY_ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
  return 1
end
return 0`;

export interface DeliverySlot {
  release(): Promise<void>;
}

/**
 * Webhook deliveries in flight per workspace, shared by every worker process
 * (WEBHOOK_CONCURRENCY_PER_WORKSPACE). A delivery that finds its workspace's slots taken does not
 * wait in a worker slot: it goes back to the queue for a moment, so the other tenants' deliveries
 * keep flowing however many of one tenant's receivers hang.
 */
@Injectable()
export class WorkspaceDeliverySlots {
  /** TRY_ACQUIRE: the key, the limit, the lease and the token; 1 when granted. */
  private readonly tryAcquireScript: (...args: (string | number)[]) => Promise<number>;

  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {
    this.tryAcquireScript = redisScript(redis, 'webhookSlotTryAcquire', TRY_ACQUIRE, 1);
  }

  /** A slot, or null when the workspace already has its share in flight. */
  async tryAcquire(workspaceId: string): Promise<DeliverySlot | null> {
    const key = redisKey(this.config, 'webhook-slots', workspaceId);
    const token = randomUUID();
    // One attempt lasts at most the receiver time-out; the lease outlives it with a margin.
    const leaseMs = this.config.webhooks.timeoutMs * 2 + 5000;
    const got = await this.tryAcquireScript(key, this.config.webhooks.concurrencyPerWorkspace, leaseMs, token);
    if (got !== 1) return null;
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        await this.redis.zrem(key, token).catch(() => 0);
      },
    };
  }
}
