import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SYSTEM_ACTOR } from '@/common/auth/auth-context';
import { AccountCredentialsService, PublishingAccountRead } from '@/modules/accounts/account-credentials.service';
import { QueueService } from '@/common/queue/queue.service';
import { EffectivePolicy, PolicyService } from '@/modules/policy/policy.service';
import { entityFromJson, entityFromRow, preparedQuery } from '@/database/plain-query';
import { PostTargetEntity } from '../entities/post-target.entity';
import { PostEntity } from '../entities/post.entity';
import { postEventData } from '../post-events';
import { PostTransitions } from '../services/post-transitions';
import { HeldPostLock, PostLocks } from './post-lock';
import { FirstCommentPoster } from './first-comment';
import { finalPostState } from './publish-outcome';
import { policyViolation } from './publish-policy';
import { OutcomeHold, TargetPublisher } from './target-publisher';

/** The policy as PolicyService.effectiveSql answers it. */
type PolicyRow = Parameters<PolicyService['effectiveFrom']>[1];

/** publishingReadSql's value. */
interface PublishingRead {
  policy: PolicyRow | null;
  targets: { row: Record<string, unknown>; account: Record<string, unknown> | null }[];
}

/** How long a job waits for another live worker to let go of the same post. */
const LOCK_WAIT_MS = 30_000;
/** A check-publish job may fire a little before this clock agrees it is due. */
const DUE_TOLERANCE_MS = 1000;

export type PublishRunOutcome =
  | 'missing'
  | 'skipped'
  | 'busy'
  /** Targets wait on the network's processing: the post stays processing, a check-publish job is due. */
  | 'waiting'
  | 'published'
  | 'partially_published'
  | 'failed';

/**
 * The `publish-post` job. Safe to run twice and to race a cancel:
 * - one worker per post at a time (PostLocks); a duplicate job waits, then finds the post done;
 * - `queued → processing` is a guarded transition: a cancel that won leaves nothing to do;
 * - a post already `processing` (a crashed worker's job re-run by stalled recovery, or the
 *   resume sweep) continues where the crashed one stopped — targets already `success`/`failed`
 *   are kept, one left `publishing` is checked on the network before anything is re-sent;
 * - the profile's policy is applied again when the post goes out: a target it now forbids
 *   (excluded platform, blocked term) fails as `policy_violation` without any network call;
 * - a target the network is still processing waits on it (`waiting_on_network`): the run ends,
 *   the post stays `processing`, and a delayed `check-publish` job (same run, same lock) checks
 *   the targets that are due, until every target is settled;
 * - each published target's first comment is posted once its item is out (FirstCommentPoster:
 *   recorded before the call, never re-sent), before the post's final event;
 * - `processing → final` is guarded too, so each post.* event is written exactly once.
 */
@Injectable()
export class PublishPostProcessor {
  private readonly logger = new Logger('PublishPost');

  constructor(
    private readonly ds: DataSource,
    private readonly queues: QueueService,
    private readonly transitions: PostTransitions,
    private readonly locks: PostLocks,
    private readonly targets: TargetPublisher,
    private readonly firstComments: FirstCommentPoster,
    private readonly policies: PolicyService,
    private readonly credentials: AccountCredentialsService,
  ) {}

  async run(postId: string): Promise<PublishRunOutcome> {
    // One round trip per try, on the lock's connection: the post's lock taken, and with it
    // queued → processing (with its history row) and the targets, the policy in force and the
    // targets' accounts read (Guardrails hold at publish time: the policy in force now, not the one
    // the post was saved under).
    const acquired = await this.locks.acquireWith(postId, LOCK_WAIT_MS, async (m) => {
      const { passed, moved } = await this.transitions.transitionGatedReading<PublishingRead>(
        m,
        { id: postId },
        ['queued'],
        'processing',
        { actor: SYSTEM_ACTOR, reason: 'publishing started' },
        this.publishingReadSql('moved.id', 'moved.profile_id'),
        (bind) => this.locks.trySql(bind(postId)),
      );
      return { locked: passed, value: moved };
    });
    if (!acquired) {
      const post = await this.ds.getRepository(PostEntity).findOne({ where: { id: postId } });
      // A live worker is publishing this post; it finishes the job. A queued post waiting behind
      // it (a retry right after a run) must not be dropped: fail so it is picked up again.
      if (post?.state === 'queued') throw new Error(`Post ${postId} is locked by another worker`);
      return 'busy';
    }
    const { lock, value } = acquired;
    try {
      return await this.runLocked(postId, value, lock);
    } finally {
      // Let go of without waiting: the post is settled (or the job fails and is retried later);
      // holding the lock a moment longer only makes a duplicate job wait for it.
      lock
        .release()
        .catch((err: Error) => this.logger.warn({ postId, err: err.message }, 'Could not release post lock'));
    }
  }

  /**
   * `started`: what the try that took the lock did: the post moved to processing with its read;
   * null when it was not queued.
   */
  private async runLocked(
    postId: string,
    started: { post: PostEntity; read: PublishingRead } | null,
    lock: HeldPostLock,
  ): Promise<PublishRunOutcome> {
    // Otherwise the post as it stands: a cancel that won leaves nothing to do; `processing` is resumed.
    let post: PostEntity;
    let read: PublishingRead;
    if (started) ({ post, read } = started);
    else {
      const current = await this.ds.getRepository(PostEntity).findOne({ where: { id: postId } });
      if (!current) return 'missing';
      if (current.state !== 'processing') return 'skipped';
      this.logger.log({ postId }, 'Resuming a post left in processing');
      post = current;
      const { rows } = await preparedQuery<{ read: PublishingRead }>(
        this.ds,
        `SELECT ${this.publishingReadSql('$1::uuid', '$2::uuid')} AS read`,
        [post.id, post.profileId],
      );
      read = rows[0].read;
    }
    const { targets, policy, accounts } = this.fromPublishingRead(post, read);
    // The targets go out at once (each keeps its own at-most-once protocol and its network's
    // concurrency slot); every one is settled before the post lock is let go, errors included.
    // Their outcomes are written with the post's final move (or before anything else reads them).
    const hold = this.targets.holdOutcomes(targets);
    const outcomes = await Promise.allSettled(
      targets.map(async (target) => {
        const violation = target.status === 'pending' ? policyViolation(policy, post, target) : null;
        if (violation) await this.targets.refuse(target, 'policy_violation', violation);
        else if (target.status === 'waiting_on_network') {
          if (target.nextCheckAt && target.nextCheckAt.getTime() <= Date.now() + DUE_TOLERANCE_MS)
            await this.targets.followUp(post, target);
        } else await this.targets.publish(post, target, accounts.get(target.id));
      }),
    );
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) {
      await hold.flush().catch(() => undefined);
      throw failed.reason;
    }
    // The targets as their publishing left them (each write mirrors itself on the object; read
    // again only when one may not: a write that found its row moved, a follow-up). The usual case,
    // nothing to read again and no first comment: their held outcomes go with the final move.
    // Otherwise they are written first, and the first comments go before the post.* event, so its
    // results carry each comment's outcome (read again only when a comment changed a target row).
    const current = targets.every((t) => this.targets.isCurrent(t));
    if (current && this.firstComments.due(post, targets).length === 0) return this.finish(post, targets, lock, hold);
    await hold.flush();
    const settled = targets.every((t) => this.targets.isCurrent(t)) ? targets : await this.readTargets(postId);
    const commented = await this.firstComments.postAll(post, settled);
    return this.finish(post, commented > 0 ? await this.readTargets(postId) : settled, lock);
  }

  /** The post's targets in their order (a prepared statement, mapped by hand). */
  private async readTargets(postId: string): Promise<PostTargetEntity[]> {
    const { rows } = await preparedQuery(
      this.ds,
      `SELECT * FROM post_targets WHERE post_id = $1 ORDER BY created_at, id`,
      [postId],
    );
    return rows.map((r) => entityFromRow(this.ds.manager, PostTargetEntity, r));
  }

  /**
   * The post's targets in their order (readTargets' rows, as jsonb), the profile's policy in force
   * and each target's account (as the publisher reads it, the credentials service's SQL): one
   * jsonb value, an SQL expression over the post's id and profile id.
   */
  private publishingReadSql(postId: string, profileId: string): string {
    return `jsonb_build_object('policy', ${this.policies.effectiveSql(profileId)},
      'targets', (SELECT coalesce(jsonb_agg(jsonb_build_object('row', to_jsonb(t),
                   'account', ${this.credentials.publishingRowSql('t.account_id')}) ORDER BY t.created_at, t.id), '[]'::jsonb)
                  FROM post_targets t WHERE t.post_id = ${postId}))`;
  }

  private fromPublishingRead(
    post: PostEntity,
    read: PublishingRead,
  ): { targets: PostTargetEntity[]; policy: EffectivePolicy; accounts: Map<string, PublishingAccountRead> } {
    const at = Date.now();
    const targets = read.targets.map((t) => entityFromJson(this.ds.manager, PostTargetEntity, t.row));
    return {
      targets,
      policy: this.policies.effectiveFrom(post.profileId, read.policy),
      accounts: new Map(targets.map((t, i) => [t.id, { row: read.targets[i].account, at }])),
    };
  }

  /**
   * The next `check-publish` job, at the earliest due check (job id per due time: a second
   * schedule for the same time is a no-op). Lost with Redis? resume-stuck-posts re-runs the post
   * once the check is overdue.
   */
  private async scheduleCheck(postId: string, waiting: PostTargetEntity[]): Promise<void> {
    const due = Math.min(...waiting.map((t) => t.nextCheckAt?.getTime() ?? Date.now()));
    await this.queues.enqueue(
      'check-publish',
      { postId },
      {
        jobId: `check:${postId}:${due}`,
        delay: Math.max(0, due - Date.now()),
        attempts: 5,
        backoff: { type: 'exponential', delay: 1000 },
      },
    );
  }

  /**
   * `targets`: as they stand after every target and first comment settled (the post lock keeps
   * other publishers off them); the move itself is guarded by the state, as it was in a transaction
   * at read committed.
   */
  private async finish(
    post: PostEntity,
    targets: PostTargetEntity[],
    lock: HeldPostLock,
    hold?: OutcomeHold,
  ): Promise<PublishRunOutcome> {
    const open = targets.filter((t) => t.status !== 'success' && t.status !== 'failed');
    const waiting = open.filter((t) => t.status === 'waiting_on_network');
    if (open.length > 0) await hold?.flush();
    if (open.length > waiting.length)
      throw new Error(`Post ${post.id} still has ${open.length - waiting.length} unfinished target(s)`);
    if (waiting.length > 0) {
      await this.scheduleCheck(post.id, waiting);
      return 'waiting';
    }
    const to = finalPostState(targets);
    const ok = targets.filter((t) => t.status === 'success').length;
    const reason =
      to === 'published'
        ? 'published on every target'
        : to === 'failed'
          ? 'failed on every target'
          : `published on ${ok} of ${targets.length} targets`;
    // The targets' held outcomes, the post, its history row, its post.* event and the post's lock let
    // go of, in one statement on the lock's connection; the post moves only when every held outcome
    // was written, and the lock is let go of only when it moved (after the move took the post's row,
    // so a worker that takes the lock next waits for this statement's commit before it reads the post).
    const move = {
      actor: SYSTEM_ACTOR,
      reason,
      set: { publishedAt: ok > 0 ? (post.publishedAt ?? new Date()) : post.publishedAt },
      events: [{ type: `post.${to}`, data: postEventData({ ...post, state: to }, targets) }],
    };
    const held = (await hold?.take()) ?? [];
    const { written, moved, after } = await this.transitions.transitionAloneWith(
      lock.manager,
      post,
      ['processing'],
      to,
      move,
      {
        before:
          held.length > 0 ? { sql: (bind) => this.targets.outcomesSql(held, bind), expected: held.length } : undefined,
        after: (bind) => lock.unlockSql(bind(post.id)),
      },
    );
    if (after === true) lock.unlocked();
    this.targets.outcomesWritten(held, written);
    // A held outcome found its row moved (never under the post's lock): decide on the rows as they are.
    if (written.length < held.length) return this.finish(post, await this.readTargets(post.id), lock);
    return moved ? to : 'skipped';
  }
}
