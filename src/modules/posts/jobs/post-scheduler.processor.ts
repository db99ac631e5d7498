import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SYSTEM_ACTOR } from '@/common/auth/auth-context';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import type { JobPayloads } from '@/common/queue/jobs';
import { AppConfig } from '@/config/config';
import { PolicyService } from '@/modules/policy/policy.service';
import type { PostState } from '../entities/post.entity';
import { PostFlow } from '../services/post-flow.service';
import { PostTransitions } from '../services/post-transitions';
import { PostRef, PostsQueueService } from '../services/posts-queue.service';
import { PostsRepository } from '../services/posts.repository';

const SWEEP_BATCH = 200;
/** A delayed job may fire a little before the database clock agrees; within this it counts as due. */
const DUE_TOLERANCE_MS = 1000;

export class NotDueYetError extends Error {}

/** Posts moved to queued per statement (and publish jobs per addBulk) by a batch promotion. */
const PROMOTE_BATCH = 1000;
const DUE_REASON = 'scheduled time reached';

/**
 * `schedule-post` (delayed, one per post version) fires when a post's time comes and promotes
 * every due post in batches (promoteDue), so many posts due at once cost one statement and one
 * addBulk per thousand rather than a transaction and a job each; the jobs of posts a batch
 * already took find their post moved on and stop after one read. `sweep-posts` (periodic) does
 * the same for due posts whose delayed job was lost and re-adds missing publish jobs of queued
 * posts (so a crash between a batch's commit and its addBulk loses no publish job). All are safe
 * to run twice and side by side: rows are claimed FOR UPDATE SKIP LOCKED or locked and re-read,
 * and job ids are deterministic.
 */
@Injectable()
export class PostSchedulerProcessor {
  private readonly logger = new Logger('PostScheduler');

  constructor(
    private readonly ds: DataSource,
    private readonly repo: PostsRepository,
    private readonly policies: PolicyService,
    private readonly flow: PostFlow,
    private readonly transitions: PostTransitions,
    private readonly queue: PostsQueueService,
    private readonly config: AppConfig,
  ) {}

  @JobHandler('schedule-post')
  async onSchedulePost({ postId, version }: JobPayloads['schedule-post']): Promise<unknown> {
    // Taken by a batch already (another post's job, the sweep), superseded or gone: nothing to do.
    if (!(await this.repo.isScheduledAt(postId, version))) return null;
    await this.promoteDue();
    // Not in a batch: due by this clock but not yet by the database's (the tolerance and the
    // not-due retry below), or another process holds it (promote waits for its lock and finds it moved).
    return this.promote(postId, version);
  }

  @JobHandler('sweep-posts')
  onSweepPosts(): Promise<unknown> {
    return this.sweep();
  }

  /**
   * scheduled → queued (or pending_approval when the policy now asks for review and the post
   * has no approval) once scheduledAt has come. A `version` that no longer matches means the
   * schedule was superseded (rescheduled, cancelled, published): nothing to do.
   */
  async promote(postId: string, version?: number): Promise<PostState | null> {
    const moved = await this.ds.transaction(async (m) => {
      const post = await this.repo.lockById(m, postId);
      if (!post || post.state !== 'scheduled') return null;
      if (version !== undefined && post.version !== version) return null;
      if (!post.scheduledAt || post.scheduledAt.getTime() > Date.now() + DUE_TOLERANCE_MS) {
        // Fired early (clock skew): fail so the job's backoff tries again; the sweep is the backstop.
        if (version !== undefined)
          throw new NotDueYetError(`Post ${postId} is not due until ${post.scheduledAt?.toISOString()}`);
        return null;
      }
      const policy = await this.policies.effective(post.profileId, m);
      return this.flow.goLive(m, post, ['scheduled'], 'queued', policy, {
        actor: SYSTEM_ACTOR,
        reason: DUE_REASON,
      });
    });
    if (moved?.state === 'queued') await this.queue.enqueuePublish(moved);
    return moved?.state ?? null;
  }

  /**
   * Every due post, `batchSize` per transaction until none is left: the batch is claimed FOR
   * UPDATE SKIP LOCKED and moved to queued in one statement (history rows included; the one-by-one
   * path writes no event for this move either), except posts whose profile now asks for review
   * and that have no approval, which go to pending_approval one by one (approval.requested) in
   * the same transaction, each in a savepoint: one that fails is rolled back alone, logged, stays
   * scheduled for the next run and is not claimed again by this one (so a batch of failures
   * cannot loop). The publish jobs are added in bulk after the commit. Returns how many posts moved.
   */
  async promoteDue(batchSize = PROMOTE_BATCH): Promise<number> {
    let promoted = 0;
    const failed: string[] = [];
    for (;;) {
      const { claimed, moved, queued } = await this.ds.transaction(async (m) => {
        const due = await this.repo.claimDue(m, batchSize, failed);
        const unapproved = due.filter((p) => !p.approvedByUserId);
        const review = await this.policies.requiringApproval([...new Set(unapproved.map((p) => p.profileId))], m);
        const toReview = new Set(unapproved.filter((p) => review.has(p.profileId)).map((p) => p.id));
        const ids = due.map((p) => p.id).filter((id) => !toReview.has(id));
        const queued: PostRef[] = await this.transitions.transitionClaimed(m, ids, 'queued', {
          actor: SYSTEM_ACTOR,
          reason: DUE_REASON,
        });
        let moved = queued.length;
        for (const id of toReview) {
          try {
            // A nested transaction is a SAVEPOINT: a failure undoes this post's writes only.
            const after = await m.transaction(async (sp) => {
              const post = await this.repo.lockById(sp, id);
              if (!post) return null;
              const policy = await this.policies.effective(post.profileId, sp);
              return this.flow.goLive(sp, post, ['scheduled'], 'queued', policy, {
                actor: SYSTEM_ACTOR,
                reason: DUE_REASON,
              });
            });
            if (after) moved++;
            if (after?.state === 'queued') queued.push(after);
          } catch (err) {
            failed.push(id);
            this.logger.warn(
              { postId: id, err: (err as Error).message },
              'Could not promote a due post; it stays scheduled for the next sweep',
            );
          }
        }
        return { claimed: due.length, moved, queued };
      });
      await this.queue.enqueuePublishMany(queued);
      promoted += moved;
      if (claimed < batchSize) break;
    }
    return promoted;
  }

  /** Catches up with what a Redis loss dropped: due scheduled posts, queued posts without a job. */
  async sweep(): Promise<{ promoted: number; requeued: number }> {
    let promoted = 0;
    try {
      promoted = await this.promoteDue();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'Could not promote due posts');
    }
    let requeued = 0;
    for (const post of await this.repo.findStaleQueued(this.config.schedulerSweepMs, SWEEP_BATCH)) {
      if ((await this.queue.ensurePublish(post)) !== 'present') requeued++;
    }
    if (promoted + requeued > 0) this.logger.log({ promoted, requeued }, 'Sweep re-enqueued posts');
    return { promoted, requeued };
  }
}
