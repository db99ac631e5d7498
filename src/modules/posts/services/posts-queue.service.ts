import { Injectable, Logger } from '@nestjs/common';
import { QueueService } from '@/common/queue/queue.service';
import type { PostEntity } from '../entities/post.entity';

export type PostRef = Pick<PostEntity, 'id' | 'version'>;

/** Job ids are deterministic per post version, so a re-add (sweep, retry of a request) is a no-op. */
export const publishJobId = (post: PostRef): string => `publish:${post.id}:${post.version}`;
export const scheduleJobId = (post: PostRef): string => `schedule:${post.id}:${post.version}`;

/**
 * The one place that puts post jobs on the queue. Called after the transaction that made the
 * change commits; if Redis is unavailable the change stands and the sweep enqueues it later.
 */
@Injectable()
export class PostsQueueService {
  private readonly logger = new Logger('PostsQueue');

  constructor(private readonly queues: QueueService) {}

  /** `publish-post` for a post that just became queued. */
  async enqueuePublish(post: PostRef): Promise<void> {
    await this.safely('publish-post', post, () =>
      this.queues.enqueue(
        'publish-post',
        { postId: post.id },
        { jobId: publishJobId(post), attempts: 5, backoff: { type: 'exponential', delay: 2000 } },
      ),
    );
  }

  /** `publish-post` for many posts that just became queued, in one round trip (a batch promotion). */
  async enqueuePublishMany(posts: PostRef[]): Promise<void> {
    if (posts.length === 0) return;
    await this.safely('publish-post', posts[0], () =>
      this.queues.enqueueMany(
        'publish-post',
        posts.map((post) => ({
          payload: { postId: post.id },
          opts: { jobId: publishJobId(post), attempts: 5, backoff: { type: 'exponential' as const, delay: 2000 } },
        })),
      ),
    );
  }

  /** Delayed `schedule-post` for a post that just became scheduled (at its version). */
  async enqueueSchedule(post: PostRef & Pick<PostEntity, 'scheduledAt'>): Promise<void> {
    const delay = Math.max(0, (post.scheduledAt?.getTime() ?? Date.now()) - Date.now());
    await this.safely('schedule-post', post, () =>
      this.queues.enqueue(
        'schedule-post',
        { postId: post.id, version: post.version },
        { jobId: scheduleJobId(post), delay, attempts: 5, backoff: { type: 'exponential', delay: 1000 } },
      ),
    );
  }

  /** Drops the delayed job of a superseded schedule (the version check makes a survivor a no-op anyway). */
  async removeSchedule(post: PostRef): Promise<void> {
    await this.safely('schedule-post', post, () => this.queues.remove('schedule-post', scheduleJobId(post)));
  }

  /** Drops a waiting publish job of a cancelled post; a running one loses the state race instead. */
  async removePublish(post: PostRef): Promise<void> {
    await this.safely('publish-post', post, () => this.queues.remove('publish-post', publishJobId(post)));
  }

  /**
   * Brings the queue in line with a committed change, from the post before and after it:
   * a new version that is queued/scheduled gets its job; a superseded schedule or a cancelled
   * queued post loses its old one. `before` is null for a new post.
   */
  async sync(
    before: (PostRef & Pick<PostEntity, 'state'>) | null,
    after: PostRef & Pick<PostEntity, 'state' | 'scheduledAt'>,
  ): Promise<void> {
    if (before && before.version === after.version) return;
    if (before?.state === 'scheduled') await this.removeSchedule(before);
    if (before?.state === 'queued' && after.state !== 'queued') await this.removePublish(before);
    if (after.state === 'queued') await this.enqueuePublish(after);
    if (after.state === 'scheduled') await this.enqueueSchedule(after);
  }

  /**
   * Makes sure a queued post has a live publish job: adds a missing one, retries a failed one,
   * replaces a completed one (the post is still queued, so that run did not publish it).
   */
  async ensurePublish(post: PostRef): Promise<'present' | 'added' | 'retried'> {
    const job = await this.queues.queue('publish').getJob(publishJobId(post));
    if (!job) {
      await this.enqueuePublish(post);
      return 'added';
    }
    const state = await job.getState();
    if (state === 'failed') {
      await job.retry('failed');
      return 'retried';
    }
    if (state === 'completed') {
      await job.remove();
      await this.enqueuePublish(post);
      return 'added';
    }
    return 'present';
  }

  private async safely(job: string, post: PostRef, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.logger.warn(
        { job, postId: post.id, version: post.version, err: (err as Error).message },
        'Queue operation failed; the sweep will catch up',
      );
    }
  }
}
