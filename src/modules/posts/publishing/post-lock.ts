import { Injectable } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { preparedQuery } from '@/database/plain-query';
import { sleep } from './network-concurrency';

export interface HeldPostLock {
  release(): Promise<void>;
}

const KEY_SQL = `hashtextextended('publish-post:' || $1::text, 0)`;

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
    const runner: QueryRunner = this.ds.createQueryRunner();
    await runner.connect();
    try {
      const deadline = Date.now() + waitMs;
      for (;;) {
        const {
          rows: [row],
        } = await preparedQuery<{ ok: boolean }>(runner.manager, `SELECT pg_try_advisory_lock(${KEY_SQL}) AS ok`, [
          postId,
        ]);
        if (row?.ok) break;
        if (Date.now() >= deadline) {
          await runner.release();
          return null;
        }
        await sleep(pollMs);
      }
    } catch (err) {
      await runner.release();
      throw err;
    }
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        try {
          await preparedQuery(runner.manager, `SELECT pg_advisory_unlock(${KEY_SQL})`, [postId]);
        } catch {
          // Never hand a connection that may still hold the lock back to the pool.
          await runner.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
        } finally {
          await runner.release();
        }
      },
    };
  }

  /** Whether a live worker holds the post's lock right now (probes without keeping it). */
  async isHeld(postId: string): Promise<boolean> {
    const [row] = await this.ds.query<{ held: boolean }[]>(
      `SELECT CASE WHEN pg_try_advisory_lock(${KEY_SQL}) THEN NOT pg_advisory_unlock(${KEY_SQL}) ELSE true END AS held`,
      [postId],
    );
    return row?.held ?? false;
  }
}
