import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueService } from '@/common/queue/queue.service';
import { AppConfig } from '@/config/config';
import { PostLocks } from './post-lock';

const BATCH = 100;

/**
 * The `resume-stuck-posts` job: a post in `processing` whose worker died and whose job will not
 * come back (stalled more than BullMQ allows, Redis lost) is re-enqueued. "Stuck" = no progress
 * on the post or its targets for a while AND no live worker holding its lock. A post whose targets
 * wait on the network is not stuck while their next check is ahead (its check-publish job is due
 * then); once a check is overdue (the job was lost with Redis) the post is re-run like any other.
 */
@Injectable()
export class ResumeStuckPosts {
  private readonly logger = new Logger('ResumeStuckPosts');

  constructor(
    private readonly ds: DataSource,
    private readonly queues: QueueService,
    private readonly locks: PostLocks,
    private readonly config: AppConfig,
  ) {}

  /** Two sweep periods without progress (10 s at least): stalled-job recovery usually wins first. */
  get stuckAfterMs(): number {
    return Math.max(2 * this.config.schedulerSweepMs, 10_000);
  }

  /** Returns the ids of the posts re-enqueued. */
  async sweep(now = Date.now()): Promise<string[]> {
    const cutoff = new Date(now - this.stuckAfterMs);
    const rows = await this.ds.query<{ id: string }[]>(
      `SELECT p.id FROM posts p
        WHERE p.state = 'processing' AND p.updated_at < $1
          AND NOT EXISTS (SELECT 1 FROM post_targets t WHERE t.post_id = p.id
                           AND (t.updated_at >= $1 OR (t.status = 'waiting_on_network' AND t.next_check_at >= $1)))
        ORDER BY p.updated_at LIMIT ${BATCH}`,
      [cutoff],
    );
    const resumed: string[] = [];
    // One job id per post per period: repeated sweeps do not pile up jobs, a later period can.
    const period = Math.floor(now / this.stuckAfterMs);
    for (const { id } of rows) {
      if (await this.locks.isHeld(id)) continue;
      await this.queues.enqueue('publish-post', { postId: id }, { jobId: `publish:${id}:resume-${period}` });
      resumed.push(id);
    }
    if (resumed.length) this.logger.warn({ posts: resumed }, 'Re-enqueued posts stuck in processing');
    return resumed;
  }
}
