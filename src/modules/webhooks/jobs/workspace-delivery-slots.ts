import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { InjectRedis, redisKey } from '@/common/redis/redis.module';
import { redisScript } from '@/common/redis/redis-script';
import { slotReleaser } from '@/common/redis/slot-release';
import { AppConfig } from '@/config/config';

/**
 * A sorted set per workspace: member = holder token, score = lease expiry (Redis clock). Expired
 * leases (a worker that died mid-delivery) are dropped before counting. Takes a slot for each of
 * the tokens ARGV[3..] in order while one is free; answers how many it took (the first n).
 */
const TRY_ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local free = tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1])
local granted = 0
for i = 3, #ARGV do
  if granted >= free then break end
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i])
  granted = granted + 1
end
if granted > 0 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2) end
return granted`;

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
  /** TRY_ACQUIRE: the key, the limit, the lease, then the tokens; how many were granted. */
  private readonly tryAcquireScript: (...args: (string | number)[]) => Promise<number>;
  /** Frees a slot (the releases of one turn: one ZREM). */
  private readonly release: (key: string, token: string) => Promise<unknown>;

  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {
    this.tryAcquireScript = redisScript(redis, 'webhookSlotsTryAcquire', TRY_ACQUIRE, 1);
    this.release = slotReleaser(redis);
  }

  /** A slot, or null when the workspace already has its share in flight. */
  async tryAcquire(workspaceId: string): Promise<DeliverySlot | null> {
    return (await this.tryAcquireMany(workspaceId, 1))[0] ?? null;
  }

  /** Up to `wanted` slots in one round trip: as many as the workspace's share has free (maybe none). */
  async tryAcquireMany(workspaceId: string, wanted: number): Promise<DeliverySlot[]> {
    const key = redisKey(this.config, 'webhook-slots', workspaceId);
    const tokens = Array.from({ length: wanted }, () => randomUUID());
    // One attempt lasts at most the receiver time-out; the lease outlives it with a margin.
    const leaseMs = this.config.webhooks.timeoutMs * 2 + 5000;
    const granted = await this.tryAcquireScript(key, this.config.webhooks.concurrencyPerWorkspace, leaseMs, ...tokens);
    return tokens.slice(0, granted).map((token) => {
      let released = false;
      return {
        release: async () => {
          if (released) return;
          released = true;
          await this.release(key, token);
        },
      };
    });
  }
}
