import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Actor } from '@/common/outbox/event.entity';
import { ApiError } from '@/common/errors/api-error';
import { entityFromRow, preparedQuery } from '@/database/plain-query';
import { OutboxService } from '@/common/outbox/outbox.service';
import { PostEntity, PostState } from '../entities/post.entity';
import { releaseQueueSlot } from '../queue/queue-slot-release';

/** States in which a post no longer occupies its posting-queue slot. */
const LEAVES_SLOT: PostState[] = ['cancelled', 'rejected'];

export interface TransitionOptions {
  reason?: string | null;
  actor: Actor;
  /** Events to write with the change (outbox rows in the same transaction). */
  events?: { type: string; data: Record<string, unknown> }[];
  /** Extra columns to set in the same UPDATE. */
  set?: Partial<Pick<PostEntity, 'scheduledAt' | 'approvedByUserId' | 'rejectionReason' | 'publishedAt'>>;
}

/** The post a one-statement move names: its id, and its workspace and profile when it writes events. */
type MovedPost = Pick<PostEntity, 'id'> & Partial<Pick<PostEntity, 'workspaceId' | 'profileId'>>;
/** What a one-statement move writes beside the state: history reason and actor, events, published_at. */
type MoveOptions = Pick<TransitionOptions, 'reason' | 'actor' | 'events'> & { set?: Pick<PostEntity, 'publishedAt'> };

/**
 * Every post state change goes through here: one guarded UPDATE (… WHERE state IN (from)),
 * a history row and the outbox events, on the caller's transaction (`transition`) or as one
 * statement of their own (the publisher's moves). A lost race (another process changed the state
 * first) is an `invalid_state_transition` (or a null move), never a silent overwrite.
 */
@Injectable()
export class PostTransitions {
  constructor(private readonly outbox: OutboxService) {}

  async transition(
    m: EntityManager,
    post: Pick<PostEntity, 'id' | 'workspaceId' | 'profileId'>,
    from: PostState[],
    to: PostState,
    opts: TransitionOptions,
  ): Promise<PostEntity> {
    const result = await m
      .createQueryBuilder()
      .update(PostEntity)
      .set({ state: to, version: () => 'version + 1', ...(opts.set ?? {}) })
      .where('id = :id AND state IN (:...from)', { id: post.id, from })
      .returning('*')
      .execute();
    const raw = (result.raw as Record<string, unknown>[])[0];
    if (!raw) {
      const current = await m.findOne(PostEntity, { where: { id: post.id } });
      throw new ApiError('invalid_state_transition', `A ${current?.state ?? 'missing'} post cannot become ${to}.`);
    }
    if (LEAVES_SLOT.includes(to) || (opts.set && 'scheduledAt' in opts.set))
      await releaseQueueSlot(m, post, LEAVES_SLOT.includes(to) ? null : (opts.set?.scheduledAt ?? null));
    await this.recordHistory(m, [post.id], to, opts);
    for (const e of opts.events ?? []) {
      await this.outbox.record(m, {
        workspaceId: post.workspaceId,
        profileId: post.profileId,
        type: e.type,
        actor: opts.actor,
        data: e.data,
      });
    }
    return hydrate(m, raw);
  }

  /**
   * `transition` as one statement on its own (atomic without a transaction: one round trip
   * instead of BEGIN, UPDATE, INSERT…, COMMIT), behind a gate: the guarded UPDATE, its history row
   * and its events (OutboxService.insertSql) as data-modifying CTEs that write only when the UPDATE
   * matched, reading `select` (an SQL expression over the moved row, `moved`) in the same
   * statement. `gate(bind)` is an SQL boolean expression evaluated once, first, in the same
   * statement (the publisher's post lock, taken on the connection `m` runs on); the move is made
   * only when it is true. For the publisher's queued → processing with the post's targets: moves
   * that leave no queue slot and change no schedule. `passed`: the gate's value; `moved`: the moved
   * post and what `select` read, null when the gate was false or the state was not one of `from`
   * (a lost race: nothing written). Events need the post's workspace and profile.
   */
  async transitionGatedReading<T>(
    m: EntityManager,
    post: MovedPost,
    from: PostState[],
    to: PostState,
    opts: MoveOptions,
    select: string,
    gate: (bind: (value: unknown) => string) => string,
  ): Promise<{ passed: boolean; moved: { post: PostEntity; read: T } | null }> {
    const raw = (await this.moveAlone(m, post, from, to, opts, select, (bind) => ({
      ctes: `gate AS (SELECT (${gate(bind)}) AS passed)`,
      where: '(SELECT passed FROM gate)',
      answer: '(SELECT passed FROM gate) AS gate_passed',
    })))!;
    const passed = raw.gate_passed === true;
    return { passed, moved: passed && raw.id ? { post: hydrate(m, raw), read: raw.extra_read as T } : null };
  }

  /**
   * A one-statement move (as transitionGatedReading, with no gate) with more, and nothing read, in the same statement. `before(bind)`: one data-modifying CTE named
   * `written` answering `id` for each row it wrote (the publisher's held target outcomes), which
   * must write `expected` rows for the post to move; `written`: the ids it wrote (whether or not the
   * post moved). `after(bind)`: an SQL expression evaluated once, only when the post moved and after
   * the move took the post's row (the publisher letting go of the post's lock, on the lock's
   * connection `m`); `after`: its value, or null when the post did not move.
   */
  async transitionAloneWith(
    m: EntityManager,
    post: MovedPost,
    from: PostState[],
    to: PostState,
    opts: MoveOptions,
    more: {
      before?: { sql: (bind: (value: unknown) => string) => string; expected: number };
      after?: (bind: (value: unknown) => string) => string;
    },
  ): Promise<{ written: string[]; moved: PostEntity | null; after: unknown }> {
    const { before, after } = more;
    const raw = (await this.moveAlone(m, post, from, to, opts, undefined, (bind) => ({
      ctes: before ? `written AS (${before.sql(bind)})` : undefined,
      where: before ? `(SELECT count(*) FROM written) = ${bind(before.expected)}` : undefined,
      // Reading `moved` orders it after the move (and evaluates it only when the post moved).
      after: after ? `after_move AS (SELECT (${after(bind)}) AS value FROM moved)` : undefined,
      answer: [
        before ? `(SELECT coalesce(array_agg(id), '{}') FROM written) AS written_ids` : `'{}'::uuid[] AS written_ids`,
        after ? `(SELECT value FROM after_move) AS after_value` : `NULL AS after_value`,
      ].join(', '),
    })))!;
    return {
      written: raw.written_ids as string[],
      moved: raw.id ? hydrate(m, raw) : null,
      after: raw.after_value ?? null,
    };
  }

  /**
   * The move as one statement. `extra(bind)`: CTEs put before the move, a condition added to its
   * WHERE, CTEs put after it, and columns of the answer, which is then one row whatever happened
   * (the answer's columns, and the moved post's when it moved).
   */
  private async moveAlone(
    m: EntityManager,
    post: MovedPost,
    from: PostState[],
    to: PostState,
    opts: MoveOptions,
    select?: string,
    extra?: (bind: (value: unknown) => string) => { ctes?: string; where?: string; after?: string; answer: string },
  ): Promise<Record<string, unknown> | null> {
    if (LEAVES_SLOT.includes(to)) throw new Error(`A move to ${to} releases a queue slot: use transition()`);
    const events = opts.events ?? [];
    const { workspaceId, profileId } = post;
    if (events.length > 0 && !workspaceId) throw new Error('Events of a move need the post’s workspace');
    const params: unknown[] = [];
    const bind = (value: unknown): string => `$${params.push(value)}`;
    const sets = [`state = ${bind(to)}`, `version = version + 1`, `updated_at = now()`];
    if (opts.set && 'publishedAt' in opts.set) sets.push(`published_at = ${bind(opts.set.publishedAt ?? null)}`);
    const more = extra?.(bind);
    const moved = `UPDATE posts SET ${sets.join(', ')} WHERE id = ${bind(post.id)} AND state = ANY(${bind(from)}::text[])${more?.where ? ` AND ${more.where}` : ''} RETURNING *`;
    const history = historyInsert(
      'SELECT id FROM moved',
      bind(to),
      bind(opts.reason ?? null),
      bind(JSON.stringify(opts.actor)),
    );
    const outbox = events.length
      ? `, outbox AS (${this.outbox.insertSql(
          events.map((e) => ({ workspaceId: workspaceId!, profileId: profileId ?? null, actor: opts.actor, ...e })),
          bind,
          'EXISTS (SELECT 1 FROM moved)',
        )})`
      : '';
    // Prepared: the publisher runs this twice per post (its text varies only with the events' count).
    const result = more
      ? `SELECT answer.*, moved.*${select ? `, CASE WHEN moved.id IS NULL THEN NULL ELSE ${select} END AS extra_read` : ''} FROM (SELECT ${more.answer}) AS answer LEFT JOIN moved ON true`
      : `SELECT *${select ? `, ${select} AS extra_read` : ''} FROM moved`;
    const { rows } = await preparedQuery(
      m,
      `WITH ${more?.ctes ? `${more.ctes}, ` : ''}moved AS (${moved}), history AS (${history})${outbox}${more?.after ? `, ${more.after}` : ''} ${result}`,
      params,
    );
    return rows[0] ?? null;
  }

  /**
   * `transition` for a batch of posts this transaction has claimed (locked FOR UPDATE in a state
   * that may become `to`): one UPDATE and one INSERT of their history rows, no event, no queue
   * slot (the scheduler's scheduled → queued). Matching by id alone keeps the planner on the
   * primary key (with `state = 'scheduled'` it scans ix_posts_due, every due row, against the
   * whole id list: minutes for a batch of 1,000 among 100,000 due).
   */
  async transitionClaimed(
    m: EntityManager,
    ids: string[],
    to: PostState,
    opts: Pick<TransitionOptions, 'reason' | 'actor'>,
  ): Promise<Pick<PostEntity, 'id' | 'version'>[]> {
    if (ids.length === 0) return [];
    const moved = await m.query<Pick<PostEntity, 'id' | 'version'>[]>(
      `WITH moved AS (
         UPDATE posts SET state = $2, version = version + 1, updated_at = now() WHERE id = ANY($1::uuid[])
         RETURNING id, version)
       SELECT id, version FROM moved`,
      [ids, to],
    );
    const movedIds = moved.map((p) => p.id);
    await this.recordHistory(m, movedIds, to, opts);
    return moved;
  }

  /** A history row per post that has just become `to`: its `from` is the post's last `to`. */
  private async recordHistory(
    m: EntityManager,
    postIds: string[],
    to: PostState,
    opts: Pick<TransitionOptions, 'reason' | 'actor'>,
  ): Promise<void> {
    await m.query(historyInsert('SELECT unnest($1::uuid[])', '$2', '$3', '$4'), [
      postIds,
      to,
      opts.reason ?? null,
      JSON.stringify(opts.actor),
    ]);
  }
}

/**
 * The history rows of posts that have just become `to` (ids from `ids`, a query of one column):
 * each row's `from` is the post's last `to`. The other arguments are SQL parameters (`$n`).
 */
function historyInsert(ids: string, to: string, reason: string, actor: string): string {
  return `INSERT INTO post_history (post_id, from_state, to_state, reason, actor)
       SELECT p.id, (SELECT h.to_state FROM post_history h WHERE h.post_id = p.id ORDER BY h.at DESC LIMIT 1), ${to}, ${reason}, ${actor}::jsonb
         FROM (${ids}) AS p(id)`;
}

/** A PostEntity from a `RETURNING *` row. */
function hydrate(m: EntityManager, raw: Record<string, unknown>): PostEntity {
  return entityFromRow(m, PostEntity, raw);
}
