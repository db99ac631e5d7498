import type { Redis } from 'ioredis';

/**
 * Frees lease slots (members of a sorted set per key): the releases of one key made in the same
 * turn of the event loop (holders whose answers came in together) go to Redis as one ZREM, sent
 * once the turn's I/O callbacks have run. The promise never rejects (a lease left behind expires).
 */
export function slotReleaser(redis: Redis): (key: string, token: string) => Promise<unknown> {
  const releasing = new Map<string, { tokens: string[]; done: Promise<unknown> }>();
  return (key, token) => {
    let batch = releasing.get(key);
    if (!batch) {
      const tokens: string[] = [];
      const done = new Promise<unknown>((resolve) =>
        setImmediate(() => {
          releasing.delete(key);
          redis.zrem(key, ...tokens).then(resolve, () => resolve(0));
        }),
      );
      batch = { tokens, done };
      releasing.set(key, batch);
    }
    batch.tokens.push(token);
    return batch.done;
  };
}
