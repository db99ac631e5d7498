import { Injectable } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { InjectRedis, redisKey } from '@/common/redis/redis.module';
import { AppConfig } from '@/config/config';

const SANDBOX_TTL_SECONDS = 7 * 24 * 3600;

/**
 * State of the simulated networks, kept in Redis (several API processes serve one sandbox).
 * Keys are given as parts, e.g. `['facebook', 'post', id]` → `<prefix>:sandbox:facebook:post:<id>`.
 */
@Injectable()
export class SandboxStore {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    private readonly config: AppConfig,
  ) {}

  key(parts: string[]): string {
    return redisKey(this.config, 'sandbox', ...parts);
  }

  async put<T>(parts: string[], value: T, ttlSeconds = SANDBOX_TTL_SECONDS): Promise<void> {
    await this.redis.set(this.key(parts), JSON.stringify(value), 'EX', ttlSeconds);
  }

  /** Stores only when absent; false when the key already existed. */
  async putNew<T>(parts: string[], value: T, ttlSeconds = SANDBOX_TTL_SECONDS): Promise<boolean> {
    return (await this.redis.set(this.key(parts), JSON.stringify(value), 'EX', ttlSeconds, 'NX')) === 'OK';
  }

  async get<T>(parts: string[]): Promise<T | null> {
    return parsed<T>(await this.redis.get(this.key(parts)));
  }

  /** Reads and deletes in one step (single-use values such as authorization codes). */
  async take<T>(parts: string[]): Promise<T | null> {
    return parsed<T>(await this.redis.getdel(this.key(parts)));
  }

  /** Read-modify-write of a stored object; returns the new value (null when absent). */
  async update<T>(parts: string[], fn: (value: T) => T): Promise<T | null> {
    const current = await this.get<T>(parts);
    if (current === null) return null;
    const next = fn(current);
    const ttl = await this.redis.ttl(this.key(parts));
    await this.put(parts, next, ttl > 0 ? ttl : SANDBOX_TTL_SECONDS);
    return next;
  }

  /** Atomic counter; the TTL is (re)set on every increment. */
  async incr(parts: string[], ttlSeconds = SANDBOX_TTL_SECONDS): Promise<number> {
    const key = this.key(parts);
    const [[, n]] = (await this.redis.multi().incr(key).expire(key, ttlSeconds).exec()) as [[null, number]];
    return n;
  }

  /** Prepends to a list (newest first). */
  async push<T>(parts: string[], value: T, ttlSeconds = SANDBOX_TTL_SECONDS): Promise<void> {
    const key = this.key(parts);
    await this.redis.multi().lpush(key, JSON.stringify(value)).expire(key, ttlSeconds).exec();
  }

  length(parts: string[]): Promise<number> {
    return this.redis.llen(this.key(parts));
  }

  /** Items `start..stop` (inclusive, newest first; -1 = to the end). */
  async list<T>(parts: string[], start = 0, stop = -1): Promise<T[]> {
    const raw = await this.redis.lrange(this.key(parts), start, stop);
    return raw.map((r) => JSON.parse(r) as T);
  }
}

const parsed = <T>(raw: string | null): T | null => (raw === null ? null : (JSON.parse(raw) as T));

/** A simulated network's records of one kind (`[network, kind]`), each listed under its owner, newest first. */
export class SandboxRecords<T> {
  constructor(
    private readonly store: SandboxStore,
    private readonly parts: string[],
    private readonly idOf: (record: T) => string,
  ) {}

  get(id: string): Promise<T | null> {
    return this.store.get<T>([...this.parts, id]);
  }

  put(record: T): Promise<void> {
    return this.store.put([...this.parts, this.idOf(record)], record);
  }

  /** Stores a new record, first in its owner's list; answers it. */
  async add(owner: string, record: T): Promise<T> {
    await this.put(record);
    await this.store.push([...this.parts, 'of', owner], this.idOf(record));
    return record;
  }

  countOf(owner: string): Promise<number> {
    return this.store.length([...this.parts, 'of', owner]);
  }

  /** The owner's records from `start` on, newest first (at most `count`). */
  async of(owner: string, start = 0, count = 1000): Promise<T[]> {
    return this.many(await this.store.list<string>([...this.parts, 'of', owner], start, start + count - 1));
  }

  /** The records of these ids that exist, in their order. */
  async many(ids: string[]): Promise<T[]> {
    return (await Promise.all(ids.map((id) => this.get(id)))).filter((r) => r !== null);
  }
}
