import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { preparedQuery } from '@/database/plain-query';

export interface HeldPostLock {
  /** Lets go of the lock (unless a statement did, see unlockSql) and hands its connection back. */
  release(): Promise<void>;
  /** The lock's connection: a statement run on it may let go of the lock itself (unlockSql). */
  readonly manager: EntityManager;
  /** SQL that lets go of the lock (`postIdParam`: the post's id as `$n`), for a statement on `manager`. */
  unlockSql(postIdParam: string): string;
  /** A statement on `manager` let go of the lock (unlockSql answered true): release only hands the connection back. */
  unlocked(): void;
}

/** The post's lock key, from its id (`param`: a statement parameter). */
const keySql = (param = '$1'): string => `hashtextextended('publish-post:' || ${param}::text, 0)`;

/**
 * One publisher per post at a time, across processes: a PostgreSQL session advisory lock held
 * on a dedicated connection for the whole job. A worker that dies (SIGKILL, lost host) drops
 * its connection and with it the lock, so "locked" means "a live worker is on it" — which is
 * what tells a crashed publish (resume, check unknown outcomes) from one still in flight.
 */
@Injectable()
export class PostLocks {
  constructor(private readonly ds: DataSource) {}

  /** Waits up to `waitMs` for the post's lock; null when another live worker keeps it. */
  async acquire(postId: string, waitMs: number, pollMs = 250): Promise<HeldPostLock | null> {
    const tryAlone = async (m: EntityManager) => {
      const { rows } = await preparedQuery<{ ok: boolean }>(m, `SELECT ${this.trySql('$1')} AS ok`, [postId]);
      return { locked: rows[0]?.ok === true, value: undefined };
    };
    return (await this.acquireWith(postId, waitMs, tryAlone, pollMs))?.lock ?? null;
  }

  /**
   * The SQL boolean expression that tries for the post's lock (`postIdParam`: the post's id as a
   * statement parameter, `$n`), for `first` of acquireWith: true when it took it.
   */
  trySql(postIdParam: string): string {
    return `pg_try_advisory_lock(${keySql(postIdParam)})`;
  }

  /**
   * acquire, whose every try is the caller's own statement: `tryLock(m)` runs on the lock's
   * connection (`m`) one statement that tries for the lock with trySql and does the caller's first
   * step only when it took it (one round trip for both), and answers whether it took it and the
   * step's value.
   */
  async acquireWith<T>(
    postId: string,
    waitMs: number,
    tryLock: (m: EntityManager) => Promise<{ locked: boolean; value: T }>,
    pollMs = 250,
  ): Promise<{ lock: HeldPostLock; value: T } | null> {
    const runner: QueryRunner = this.ds.createQueryRunner();
    await runner.connect();
    let value: T;
    try {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const tried = await tryLock(runner.manager);
        value = tried.value;
        if (tried.locked) break;
        if (Date.now() >= deadline) {
          await runner.release();
          return null;
        }
        await sleep(pollMs);
      }
    } catch (err) {
      // A statement that failed after taking the lock keeps it (advisory locks are not transactional).
      await runner.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
      await runner.release();
      throw err;
    }
    let released = false;
    let unlocked = false;
    const lock: HeldPostLock = {
      manager: runner.manager,
      unlockSql: (postIdParam) => `pg_advisory_unlock(${keySql(postIdParam)})`,
      unlocked: () => void (unlocked = true),
      release: async () => {
        if (released) return;
        released = true;
        if (unlocked) return runner.release();
        try {
          await preparedQuery(runner.manager, `SELECT pg_advisory_unlock(${keySql()})`, [postId]);
        } catch {
          // Never hand a connection that may still hold the lock back to the pool.
          await runner.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
        } finally {
          await runner.release();
        }
      },
    };
    return { lock, value };
  }

  /** Whether a live worker holds the post's lock right now (probes without keeping it). */
  async isHeld(postId: string): Promise<boolean> {
    const [row] = await this.ds.query<{ held: boolean }[]>(
      `SELECT CASE WHEN pg_try_advisory_lock(${keySql()}) THEN NOT pg_advisory_unlock(${keySql()}) ELSE true END AS held`,
      [postId],
    );
    return row?.held ?? false;
  }
}
