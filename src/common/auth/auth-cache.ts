import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import IORedis, { Redis } from 'ioredis';
import { AppConfig } from '@/config/config';
import { InjectRedis, redisKey } from '../redis/redis.module';

/** How long a resolved key (or a reachable profile) is reused without asking the database. */
export const AUTH_CACHE_MS = 5000;

/** What changed: a key (revoked, limits), a workspace (plan, trial), a profile (deleted), or anything. */
export type AuthChange = `key:${string}` | `workspace:${string}` | `profile:${string}` | '*';

/** The Redis channel of auth changes (also published by the operator CLI). */
export const authChannel = (config: Pick<AppConfig, 'redisPrefix'>): string =>
  redisKey(config as AppConfig, 'auth', 'changed');

/**
 * The request path's in-process cache of resolved API keys and reachable profiles, so that a
 * request costs no database round trip before its handler. Correctness comes from invalidation,
 * not from the TTL:
 * - every change that could make a cached answer wrong (key revoked or edited, workspace plan or
 *   trial changed, profile deleted) is published on a Redis channel after its commit, and every
 *   process drops its whole cache on any message (changes are rare; requests are not); the
 *   process that made the change drops it synchronously before publishing;
 * - a process whose subscription is not live (Redis down, reconnecting, not yet subscribed)
 *   does not use the cache at all, and drops it when the subscription comes back, so a message
 *   missed while disconnected cannot leave a stale entry;
 * - a key's `expiresAt` is cached with it and checked on every request.
 * So a revoked key stops passing everywhere as soon as the message arrives (milliseconds); the
 * TTL only bounds how long rows edited behind the service's back (SQL by hand) stay cached.
 */
@Injectable()
export class AuthCache implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('AuthCache');
  private readonly entries = new Map<string, { value: unknown; until: number }>();
  private subscriber: Redis | null = null;
  private live = false;
  /** Bumped on every drop: a load that straddles a drop must not store what it read before it. */
  private generation = 0;

  constructor(
    private readonly config: AppConfig,
    @InjectRedis() private readonly redis: Redis,
  ) {}

  onModuleInit(): void {
    const sub = new IORedis(this.config.redisUrl, { maxRetriesPerRequest: null, enableOfflineQueue: true });
    this.subscriber = sub;
    const down = (): void => {
      this.live = false;
      this.drop();
    };
    sub.on('close', down);
    sub.on('end', down);
    sub.on('reconnecting', down);
    sub.on('error', () => undefined); // 'close' follows; the cache stays off until subscribed again
    sub.on('message', () => this.drop());
    sub.on('ready', () => {
      sub.subscribe(authChannel(this.config)).then(
        () => {
          this.drop();
          this.live = true;
        },
        (err: Error) => this.logger.warn({ err: err.message }, 'Could not subscribe to auth changes'),
      );
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.live = false;
    const sub = this.subscriber;
    this.subscriber = null;
    if (sub) await sub.quit().catch(() => sub.disconnect());
  }

  /** True while subscribed to auth changes, i.e. while the cache is in use. */
  get active(): boolean {
    return this.live;
  }

  /** The cached value of `id`, or what `load` gives (cached when the subscription is live). */
  async get<T>(id: string, load: () => Promise<T>, cacheable: (value: T) => boolean = () => true): Promise<T> {
    if (this.live) {
      const hit = this.entries.get(id);
      if (hit && hit.until > Date.now()) return hit.value as T;
    }
    const generation = this.generation;
    const liveBefore = this.live;
    const value = await load();
    // Only when live all along and nothing changed meanwhile: the value is not older than a change.
    if (liveBefore && this.live && generation === this.generation && cacheable(value)) {
      this.entries.set(id, { value, until: Date.now() + AUTH_CACHE_MS });
      if (this.entries.size > 50_000) this.entries.delete(this.entries.keys().next().value as string);
    }
    return value;
  }

  private drop(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** Drops this process's cache at once, then tells every other process. Call after the change commits. */
  async changed(what: AuthChange): Promise<void> {
    this.drop();
    await this.redis
      .publish(authChannel(this.config), what)
      .catch((err: Error) => this.logger.warn({ err: err.message, what }, 'Could not publish an auth change'));
  }
}
