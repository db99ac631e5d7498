import { Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { AppConfig } from '@/config/config';
import { pooledRandom } from '../crypto/random-pool';
import { InjectRedis, redisKey } from '../redis/redis.module';
import { redisScript } from '../redis/redis-script';

/**
 * Rolling windows (a sliding log in a sorted set per key and window), checked and recorded
 * atomically by one Lua script using Redis' clock, so several API processes share one count.
 * A request is recorded only when every window admits it.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = #KEYS
local counts = {}
local admitted = 1
for i = 1, n do
  local window = tonumber(ARGV[2 * i - 1])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now - window)
  counts[i] = redis.call('ZCARD', KEYS[i])
  if counts[i] >= tonumber(ARGV[2 * i]) then admitted = 0 end
end
local out = { admitted, now }
for i = 1, n do
  local window = tonumber(ARGV[2 * i - 1])
  if admitted == 1 then
    redis.call('ZADD', KEYS[i], now, ARGV[2 * n + 1])
    redis.call('PEXPIRE', KEYS[i], window)
    counts[i] = counts[i] + 1
  end
  local oldest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
  local oldestAt = now
  if oldest[2] then oldestAt = tonumber(oldest[2]) end
  table.insert(out, counts[i])
  table.insert(out, oldestAt)
end
return out
`;

export interface RateWindow {
  limit: number;
  windowSeconds: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The window whose numbers go in the headers: the one closest to exhaustion. */
  limit: number;
  remaining: number;
  resetSeconds: number;
  windowSeconds: number;
  retryAfterSeconds: number;
}

@Injectable()
export class RateLimitService {
  /** The script: the key count, the keys, then the arguments (one small round trip). */
  private readonly rollingWindows: (...keysAndArgs: (string | number)[]) => Promise<number[]>;

  constructor(
    @InjectRedis() redis: Redis,
    private readonly config: AppConfig,
  ) {
    this.rollingWindows = redisScript(redis, 'rollingWindows', SCRIPT);
  }

  async consume(subject: string, windows: RateWindow[]): Promise<RateDecision> {
    const keys = windows.map((w) => redisKey(this.config, 'rl', subject, String(w.windowSeconds)));
    const args: (string | number)[] = [];
    for (const w of windows) args.push(w.windowSeconds * 1000, w.limit);
    args.push(`${Date.now()}-${pooledRandom(6, 'hex')}`);
    const raw = await this.rollingWindows(keys.length, ...keys, ...args);
    const allowed = raw[0] === 1;
    const now = Number(raw[1]);
    const states = windows.map((w, i) => {
      const count = Number(raw[2 + i * 2]);
      const oldestAt = Number(raw[3 + i * 2]);
      const resetMs = Math.max(0, oldestAt + w.windowSeconds * 1000 - now);
      return {
        w,
        count,
        remaining: Math.max(0, w.limit - count),
        resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
      };
    });
    // Report the most constrained window (least remaining, then longest wait).
    const binding = [...states].sort((a, b) => a.remaining - b.remaining || b.resetSeconds - a.resetSeconds)[0];
    const blocking = states.filter((s) => s.count >= s.w.limit);
    const retryAfter = blocking.length ? Math.max(...blocking.map((s) => s.resetSeconds)) : 0;
    return {
      allowed,
      limit: binding.w.limit,
      remaining: binding.remaining,
      resetSeconds: binding.resetSeconds,
      windowSeconds: binding.w.windowSeconds,
      retryAfterSeconds: retryAfter,
    };
  }
}
