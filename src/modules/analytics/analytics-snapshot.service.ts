import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AccountSweepService } from '../accounts/account-sweep.service';
import { SocialAccountEntity } from '../accounts/entities/social-account.entity';
import type { AccountCredentials, PlatformAdapter } from '@/modules/networks/kit/adapter';
import { PostsRepository } from '../posts/services/posts.repository';
import { addDays, utcDate } from './analytics-dates';
import { AccountDailyMetricEntity } from './entities/account-daily-metric.entity';
import { AnalyticsBackfillEntity } from './entities/analytics-backfill.entity';
import { PostDailyMetricEntity } from './entities/post-daily-metric.entity';

/** History fetched once per connection, where the network offers it. */
export const BACKFILL_DAYS = 90;
/** Published items are re-read daily for this long; later their numbers barely move. */
const POST_WINDOW_DAYS = 30;
const POSTS_PER_ACCOUNT = 100;

export interface SnapshotRun {
  accounts: number;
  failed: number;
  days: number;
  posts: number;
}

export interface AccountSnapshot {
  days: number;
  posts: number;
  backfilled: boolean;
}

/**
 * The `snapshot-analytics` job (hourly): for every active account, upsert yesterday's and
 * today's numbers (today's row keeps changing until the day ends), the first time after a
 * connection the last 90 days, and today's lifetime numbers of its recently published items.
 * Upserts only, so a run repeated by stalled-job recovery writes the same rows.
 */
@Injectable()
export class AnalyticsSnapshotService {
  private readonly logger = new Logger('AnalyticsSnapshot');

  constructor(
    private readonly dataSource: DataSource,
    private readonly sweep: AccountSweepService,
    private readonly posts: PostsRepository,
  ) {}

  async snapshotAll(now = new Date()): Promise<SnapshotRun> {
    const totals = { days: 0, posts: 0 };
    const run = await this.sweep.forEach(
      {},
      { logger: this.logger, failure: 'Analytics snapshot failed' },
      async (id) => {
        const s = await this.snapshotAccount(id, now);
        totals.days += s.days;
        totals.posts += s.posts;
      },
    );
    return { ...run, ...totals };
  }

  /**
   * Snapshot one account now. Connect code may call this right after a connection (it
   * backfills then); otherwise the next hourly run does it.
   */
  async snapshotAccount(accountId: string, now = new Date()): Promise<AccountSnapshot> {
    const m = this.dataSource.manager;
    const opened = await this.sweep.open(accountId);
    if (!opened) return { days: 0, posts: 0, backfilled: false };
    const { account, adapter, creds } = opened;
    const today = utcDate(now);
    const marker = await m.findOne(AnalyticsBackfillEntity, { where: { accountId: account.id } });
    const backfill = !marker || marker.connectedAt.getTime() !== account.connectedAt.getTime();
    const from = addDays(today, backfill ? -(BACKFILL_DAYS - 1) : -1);
    const days = (await adapter.getDailyMetrics(creds, from, today)).filter((d) => d.date >= from && d.date <= today);
    await this.dataSource.transaction(async (tx) => {
      await this.upsertDays(tx, account, days);
      if (backfill)
        await tx.upsert(
          AnalyticsBackfillEntity,
          {
            accountId: account.id,
            connectedAt: account.connectedAt,
            fromDate: from,
            days: days.length,
            backfilledAt: now,
          },
          ['accountId'],
        );
    });
    const posts = await this.snapshotPosts(account, creds, adapter, now);
    return { days: days.length, posts, backfilled: backfill };
  }

  private async upsertDays(
    m: EntityManager,
    account: SocialAccountEntity,
    days: Awaited<ReturnType<PlatformAdapter['getDailyMetrics']>>,
  ): Promise<void> {
    if (days.length === 0) return;
    const rows = days.map((d) => ({
      workspaceId: account.workspaceId,
      profileId: account.profileId,
      accountId: account.id,
      platform: account.platform,
      date: d.date,
      views: d.views,
      engagement: d.engagement,
      shares: d.shares,
      followers: d.followers,
      reach: d.reach,
    }));
    await m
      .createQueryBuilder()
      .insert()
      .into(AccountDailyMetricEntity)
      .values(rows)
      .orUpdate(['views', 'engagement', 'shares', 'followers', 'reach', 'captured_at'], ['account_id', 'date'])
      .execute();
  }

  /** Today's lifetime numbers of the account's items published in the last 30 days. */
  private async snapshotPosts(
    account: SocialAccountEntity,
    creds: AccountCredentials,
    adapter: PlatformAdapter,
    now: Date,
  ): Promise<number> {
    const targets = await this.posts.publishedTargetsOf(
      account,
      new Date(now.getTime() - POST_WINDOW_DAYS * 86_400_000),
      POSTS_PER_ACCOUNT,
    );
    let saved = 0;
    for (const target of targets) {
      try {
        const metrics = await adapter.getItemMetrics(creds, target.externalId!);
        await this.dataSource
          .createQueryBuilder()
          .insert()
          .into(PostDailyMetricEntity)
          .values({
            workspaceId: account.workspaceId,
            profileId: account.profileId,
            postId: target.postId,
            targetId: target.id,
            accountId: account.id,
            platform: account.platform,
            externalId: target.externalId!,
            date: utcDate(now),
            ...metrics,
          })
          .orUpdate(
            ['views', 'likes', 'comments', 'shares', 'reach', 'engagement', 'captured_at'],
            ['target_id', 'date'],
          )
          .execute();
        saved += 1;
      } catch (err) {
        // An item deleted on the network keeps its earlier snapshots.
        this.logger.warn(
          { accountId: account.id, targetId: target.id, err: (err as Error).message },
          'Item metrics snapshot failed',
        );
      }
    }
    return saved;
  }
}
