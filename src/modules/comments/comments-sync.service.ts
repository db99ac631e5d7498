import { Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SYSTEM_ACTOR } from '@/common/auth/auth-context';
import { OutboxService } from '@/common/outbox/outbox.service';
import { AccountFilter, AccountSweepService } from '../accounts/account-sweep.service';
import { SocialAccountEntity } from '../accounts/entities/social-account.entity';
import type { AccountCredentials, NetworkComment, PlatformAdapter } from '@/modules/networks/kit/adapter';
import { PostTargetEntity } from '../posts/entities/post-target.entity';
import { PostsRepository } from '../posts/services/posts.repository';
import { CommentEntity } from './entities/comment.entity';
import { toCommentDto } from './comments.service';

/** Items are watched for new comments this long after publishing. */
const WATCH_DAYS = 30;
const TARGETS_PER_ACCOUNT = 100;
/** Pages of comments read per item and run (the network's page size, e.g. 25). */
const MAX_PAGES = 20;
/** Accounts with `commentSync` on networks that offer comments. */
const SYNCED: AccountFilter = { where: { commentSync: true }, accepts: (adapter) => adapter.supportsComments };

export interface CommentSyncRun {
  accounts: number;
  failed: number;
  stored: number;
}

/**
 * The `sync-comments` job: for accounts with `commentSync` on networks that offer comments,
 * reads the comments of recently published items and stores the ones not seen before, each
 * with a `comment.received` event in the same transaction. The unique (account, network id)
 * index makes a repeated or concurrent run store, and announce, nothing twice.
 */
@Injectable()
export class CommentsSyncService {
  private readonly logger = new Logger('CommentsSync');

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly sweep: AccountSweepService,
    private readonly posts: PostsRepository,
  ) {}

  async syncAll(now = new Date()): Promise<CommentSyncRun> {
    let stored = 0;
    const run = await this.sweep.forEach(
      SYNCED,
      { logger: this.logger, failure: 'Comment sync failed' },
      async (id) => {
        stored += await this.syncAccount(id, now);
      },
    );
    return { ...run, stored };
  }

  /** Syncs one account now; returns how many new comments were stored. */
  async syncAccount(accountId: string, now = new Date()): Promise<number> {
    const opened = await this.sweep.open(accountId, SYNCED);
    if (!opened) return 0;
    const { account, adapter, creds } = opened;
    const targets = await this.posts.publishedTargetsOf(
      account,
      new Date(now.getTime() - WATCH_DAYS * 86_400_000),
      TARGETS_PER_ACCOUNT,
    );
    let stored = 0;
    for (const target of targets)
      stored += await this.store(account, target, await this.read(adapter, creds, target.externalId!));
    return stored;
  }

  private async read(
    adapter: PlatformAdapter,
    creds: AccountCredentials,
    externalPostId: string,
  ): Promise<NetworkComment[]> {
    const all: NetworkComment[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await adapter.listComments(creds, externalPostId, cursor);
      all.push(...res.comments);
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    return all;
  }

  private async store(
    account: SocialAccountEntity,
    target: PostTargetEntity,
    comments: NetworkComment[],
  ): Promise<number> {
    if (comments.length === 0) return 0;
    return this.dataSource.transaction(async (m) => {
      const result = await m
        .createQueryBuilder()
        .insert()
        .into(CommentEntity)
        .values(
          comments.map((c) => ({
            workspaceId: account.workspaceId,
            profileId: account.profileId,
            accountId: account.id,
            postId: target.postId,
            targetId: target.id,
            platform: account.platform,
            externalId: c.id,
            externalPostId: c.externalPostId,
            authorName: c.authorName,
            text: c.text,
            createdAt: new Date(c.createdAt),
          })),
        )
        .orIgnore()
        .returning('id')
        .updateEntity(false)
        .execute();
      const ids = (result.raw as { id: string }[]).map((r) => r.id);
      if (ids.length === 0) return 0;
      const inserted = await m
        .getRepository(CommentEntity)
        .find({ where: ids.map((id) => ({ id })), order: { createdAt: 'ASC', id: 'ASC' } });
      for (const c of inserted) {
        // Same shape as GET /v1/comments items (and the webhooks test sample).
        await this.outbox.record(m, {
          workspaceId: c.workspaceId,
          profileId: c.profileId,
          type: 'comment.received',
          actor: SYSTEM_ACTOR,
          data: { comment: toCommentDto(c) },
        });
      }
      return inserted.length;
    });
  }
}
