import type { Redis } from 'ioredis';

/**
 * A Lua script as a function on `redis`: defined once per connection as an ioredis command, so it
 * is sent as EVALSHA of the cached script (ioredis loads it on the first NOSCRIPT), not as the
 * script's text each time. `numberOfKeys` left out: the caller passes the key count first.
 */
export function redisScript<A extends (string | number)[], R>(
  redis: Redis,
  name: string,
  lua: string,
  numberOfKeys?: number,
): (...args: A) => Promise<R> {
  if (!(name in redis)) redis.defineCommand(name, numberOfKeys === undefined ? { lua } : { numberOfKeys, lua });
  const command = (redis as unknown as Record<string, (...args: A) => Promise<R>>)[name];
  return (...args) => command.apply(redis, args);
}
