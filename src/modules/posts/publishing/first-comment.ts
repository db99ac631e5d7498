import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccountCredentialsService } from '@/modules/accounts/account-credentials.service';
import type { AccountCredentials, CommentResult, PlatformAdapter } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { FirstCommentStatus } from '../entities/post-target.entity';
import { PostTargetEntity } from '../entities/post-target.entity';
import type { PostEntity } from '../entities/post.entity';
import { composeFirstComment } from './compose-content';
import { NetworkConcurrency } from './network-concurrency';
import { asPlatformError, decideAfterError } from './publish-outcome';
import { TargetPublisher } from './target-publisher';

/** Why a comment whose outcome is unknown (and not found on the network) is not sent again. */
export const INTERRUPTED_COMMENT =
  'The outcome of the first comment is unknown (the call was interrupted or its answer lost) and the network did not show it; it was not sent again to avoid a duplicate. Check the item and comment by hand if it is missing.';
/** A comment found by the look-up was made at most this long before the attempt was recorded (clock skew). */
const LOOKUP_SLACK_MS = 120_000;
/** Pages of the item's comments the look-up reads (our comment is among the newest). */
const LOOKUP_PAGES = 8;

/**
 * Posts a published target's first comment, at most once, with the same protocol as the post:
 * `attempting` (and the attempt time) is committed before the network call; `success` with the
 * comment's id, or `failed` with the reason, after it. A comment whose outcome is unknown (found
 * `attempting` after a crash, or its answer lost) is looked for among the item's comments where
 * the network lists them (Facebook, Instagram): found → success; otherwise failed, never re-sent. A failed comment
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

  /**
   * Every published target of the post whose requested first comment is not settled yet; `targets`:
   * the post's targets as just read (the caller holds the post's lock), else they are read here.
   * Returns how many comments it settled or tried (0: no target row was changed).
   */
  async postAll(post: Pick<PostEntity, 'id' | 'content'>, targets?: PostTargetEntity[]): Promise<number> {
    const published =
      targets ??
      (await this.ds.getRepository(PostTargetEntity).find({
        where: { postId: post.id, status: 'success' },
        order: { createdAt: 'ASC', id: 'ASC' },
      }));
    const due = this.due(post, published);
    const outcomes = await Promise.allSettled(due.map((t) => this.post(post, t)));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
    return due.length;
  }

  /** Of these targets, the published ones whose requested first comment is not settled yet. */
  due(post: Pick<PostEntity, 'content'>, targets: PostTargetEntity[]): PostTargetEntity[] {
    return targets.filter(
      (t) => t.status === 'success' && this.unsettled(t) && composeFirstComment(post.content, t) !== null,
    );
  }

  private unsettled(t: PostTargetEntity): boolean {
    return t.firstCommentStatus === null || t.firstCommentStatus === 'attempting';
  }

  private async post(post: Pick<PostEntity, 'content'>, target: PostTargetEntity): Promise<void> {
    const text = composeFirstComment(post.content, target);
    if (text === null || !target.externalId) return;
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
    const lookUp = (cause: string) => this.settleUnknown(adapter, account, target, text, cause);
    await this.concurrency.run(target.platform, async () => {
      // A worker stopped after recording the attempt: look for the comment, never send it again.
      if (target.firstCommentStatus === 'attempting') return lookUp('the worker stopped during the call');
      if (!(await this.markAttempting(target))) return;
      const result = await this.send(() => postComment({ account, externalId, text }));
      if ('id' in result) return this.settle(target, 'success', { id: result.id });
      if ('unknown' in result) return lookUp(result.unknown);
      this.logger.warn({ targetId: target.id, platform: target.platform, err: result.error }, 'First comment failed');
      return this.settle(target, 'failed', { error: result.error });
    });
  }

  /**
   * The comment may or may not be on the network. Where the network lists an item's comments,
   * one with the same text made since the attempt is ours (success); otherwise it is failed,
   * never re-sent.
   */
  private async settleUnknown(
    adapter: PlatformAdapter,
    account: AccountCredentials,
    target: PostTargetEntity,
    text: string,
    cause: string,
  ): Promise<void> {
    const found = adapter.supportsComments ? await this.findComment(adapter, account, target, text) : null;
    if (found) return this.settle(target, 'success', { id: found });
    this.logger.warn({ targetId: target.id, platform: target.platform, cause }, 'First comment outcome unknown');
    return this.settle(target, 'failed', { error: `${INTERRUPTED_COMMENT} (${cause})` });
  }

  private async findComment(
    adapter: PlatformAdapter,
    account: AccountCredentials,
    target: PostTargetEntity,
    text: string,
  ): Promise<string | null> {
    const since = (target.firstCommentAt?.getTime() ?? Date.now()) - LOOKUP_SLACK_MS;
    let cursor: string | null = null;
    try {
      for (let page = 0; page < LOOKUP_PAGES; page++) {
        const res = await adapter.listComments(account, target.externalId!, cursor);
        const hit = res.comments.find((c) => c.text.trim() === text.trim() && Date.parse(c.createdAt) >= since);
        if (hit) return hit.id;
        cursor = res.nextCursor;
        if (!cursor) return null;
      }
    } catch (err) {
      this.logger.warn({ targetId: target.id, err: (err as Error).message }, 'First comment look-up failed');
    }
    return null;
  }

  /** The call with the in-attempt retries of failures the network reports as transient. */
  private async send(
    call: () => Promise<CommentResult>,
  ): Promise<CommentResult | { error: string } | { unknown: string }> {
    for (let tries = 1; ; tries++) {
      try {
        return await call();
      } catch (err) {
        const decision = decideAfterError(err, tries, this.targets.retryPolicy);
        if (decision.kind === 'retry') {
          await sleep(decision.delayMs);
          continue;
        }
        // 'check': the network may have taken it (a lost answer): look, never send again.
        return decision.kind === 'fail' ? { error: decision.message } : { unknown: decision.message };
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
