import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccountCredentialsService } from '@/modules/accounts/account-credentials.service';
import type { CommentResult, PlatformAdapter } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { FirstCommentStatus } from '../entities/post-target.entity';
import { PostTargetEntity } from '../entities/post-target.entity';
import type { PostEntity } from '../entities/post.entity';
import { composeFirstComment } from './compose-content';
import { NetworkConcurrency, sleep } from './network-concurrency';
import { asPlatformError, decideAfterError } from './publish-outcome';
import { TargetPublisher } from './target-publisher';

/** Why a comment found `attempting` is not sent again. */
export const INTERRUPTED_COMMENT =
  'The first comment was being posted when the worker stopped, so whether the network took it is unknown; it was not sent again to avoid a duplicate. Check the item and comment by hand if it is missing.';

/**
 * Posts a published target's first comment, at most once, with the same protocol as the post:
 * `attempting` (and the attempt time) is committed before the network call; `success` with the
 * comment's id, or `failed` with the reason, after it. A target found `attempting` lost its
 * answer (a crash, a lost response): it is marked failed, never sent again. A failed comment
 * never touches the target's own status. The caller holds the post's lock.
 */
@Injectable()
export class FirstCommentPoster {
  private readonly logger = new Logger('FirstComment');

  constructor(
    private readonly ds: DataSource,
    private readonly platforms: PlatformRegistry,
    private readonly credentials: AccountCredentialsService,
    private readonly concurrency: NetworkConcurrency,
    private readonly targets: TargetPublisher,
  ) {}

  /** Every published target of the post whose requested first comment is not settled yet. */
  async postAll(post: Pick<PostEntity, 'id' | 'content'>): Promise<void> {
    const due = (
      await this.ds.getRepository(PostTargetEntity).find({
        where: { postId: post.id, status: 'success' },
        order: { createdAt: 'ASC', id: 'ASC' },
      })
    ).filter((t) => this.unsettled(t) && composeFirstComment(post.content, t) !== null);
    const outcomes = await Promise.allSettled(due.map((t) => this.post(post, t)));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private unsettled(t: PostTargetEntity): boolean {
    return t.firstCommentStatus === null || t.firstCommentStatus === 'attempting';
  }

  private async post(post: Pick<PostEntity, 'content'>, target: PostTargetEntity): Promise<void> {
    const text = composeFirstComment(post.content, target);
    if (text === null || !target.externalId) return;
    if (target.firstCommentStatus === 'attempting')
      return this.settle(target, 'failed', { error: INTERRUPTED_COMMENT });
    let adapter: PlatformAdapter;
    try {
      adapter = this.platforms.get(target.platform);
    } catch (err) {
      return this.settle(target, 'failed', { error: (err as Error).message });
    }
    const postComment = adapter.postComment?.bind(adapter);
    if (!postComment)
      return this.settle(target, 'failed', { error: `${target.platform} does not let an account post a comment.` });
    let account;
    try {
      account = await this.credentials.forPublishing(target.accountId);
    } catch (err) {
      // Our own infrastructure failed: nothing was sent, the job's retry tries again.
      const pe = asPlatformError(err);
      if (!pe) throw err;
      return this.settle(target, 'failed', { error: pe.message });
    }
    const externalId = target.externalId;
    await this.concurrency.run(target.platform, async () => {
      if (!(await this.markAttempting(target))) return;
      const result = await this.send(() => postComment({ account, externalId, text }));
      if ('id' in result) return this.settle(target, 'success', { id: result.id });
      this.logger.warn({ targetId: target.id, platform: target.platform, err: result.error }, 'First comment failed');
      return this.settle(target, 'failed', { error: result.error });
    });
  }

  /** The call with the in-attempt retries of failures the network reports as transient. */
  private async send(call: () => Promise<CommentResult>): Promise<CommentResult | { error: string }> {
    for (let tries = 1; ; tries++) {
      try {
        return await call();
      } catch (err) {
        const decision = decideAfterError(err, tries, this.targets.retryPolicy);
        if (decision.kind === 'retry') {
          await sleep(decision.delayMs);
          continue;
        }
        // 'check': the network may have taken it; no look-up, so it is not sent again.
        return { error: decision.kind === 'fail' ? decision.message : `${INTERRUPTED_COMMENT} (${decision.message})` };
      }
    }
  }

  /** Committed before the call: from here on a crash leaves a visible `attempting`, never a resend. */
  private async markAttempting(target: PostTargetEntity): Promise<boolean> {
    const res = await this.ds
      .createQueryBuilder()
      .update(PostTargetEntity)
      .set({ firstCommentStatus: 'attempting', firstCommentAt: new Date() })
      .where('id = :id AND status = :success AND first_comment_status IS NULL', { id: target.id, success: 'success' })
      .execute();
    if (!res.affected) return false;
    target.firstCommentStatus = 'attempting';
    return true;
  }

  private async settle(
    target: PostTargetEntity,
    status: Exclude<FirstCommentStatus, 'attempting'>,
    o: { id?: string; error?: string },
  ): Promise<void> {
    const set = { firstCommentStatus: status, firstCommentId: o.id ?? null, firstCommentError: o.error ?? null };
    await this.ds
      .createQueryBuilder()
      .update(PostTargetEntity)
      .set(set)
      .where('id = :id AND (first_comment_status IS NULL OR first_comment_status = :attempting)', {
        id: target.id,
        attempting: 'attempting',
      })
      .execute();
    Object.assign(target, set);
  }
}
