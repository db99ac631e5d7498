import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SYSTEM_ACTOR } from '@/common/auth/auth-context';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import type { JobPayloads } from '@/common/queue/jobs';
import { AppConfig } from '@/config/config';
import { PolicyService } from '@/modules/policy/policy.service';
import type { PostState } from '../entities/post.entity';
import { PostFlow } from '../services/post-flow.service';
import { PostsQueueService } from '../services/posts-queue.service';
import { PostsRepository } from '../services/posts.repository';

const SWEEP_BATCH = 200;
/** A delayed job may fire a little before the database clock agrees; within this it counts as due. */
const DUE_TOLERANCE_MS = 1000;

export class NotDueYetError extends Error {}

/**
 * `schedule-post` (delayed, one per post version) moves a scheduled post on when its time comes;
 * `sweep-posts` (periodic) does the same for due posts whose delayed job was lost and re-adds
 * missing publish jobs of queued posts. Both are safe to run twice: the row is locked and its
 * state and version re-read, and job ids are deterministic.
 */
@Injectable()
export class PostSchedulerProcessor {
  private readonly logger = new Logger('PostScheduler');

  constructor(
    private readonly ds: DataSource,
    private readonly repo: PostsRepository,
    private readonly policies: PolicyService,
    private readonly flow: PostFlow,
    private readonly queue: PostsQueueService,
    private readonly config: AppConfig,
  ) {}

  @JobHandler('schedule-post')
  onSchedulePost({ postId, version }: JobPayloads['schedule-post']): Promise<unknown> {
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
        reason: 'scheduled time reached',
      });
    });
    if (moved?.state === 'queued') await this.queue.enqueuePublish(moved);
    return moved?.state ?? null;
  }

  /** Catches up with what a Redis loss dropped: due scheduled posts, queued posts without a job. */
  async sweep(): Promise<{ promoted: number; requeued: number }> {
    let promoted = 0;
    for (const { id } of await this.repo.findDueScheduled(SWEEP_BATCH)) {
      try {
        if (await this.promote(id)) promoted++;
      } catch (err) {
        this.logger.warn({ postId: id, err: (err as Error).message }, 'Could not promote a due post');
      }
    }
    let requeued = 0;
    for (const post of await this.repo.findStaleQueued(this.config.schedulerSweepMs, SWEEP_BATCH)) {
      if ((await this.queue.ensurePublish(post)) !== 'present') requeued++;
    }
    if (promoted + requeued > 0) this.logger.log({ promoted, requeued }, 'Sweep re-enqueued posts');
    return { promoted, requeued };
  }
}
