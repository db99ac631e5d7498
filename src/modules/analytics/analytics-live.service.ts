import { Injectable } from '@nestjs/common';
import { AuthContext } from '@/common/auth/auth-context';
import { isUuid } from '@/common/auth/auth.service';
import { ApiError } from '@/common/errors/api-error';
import { AccountCredentialsService } from '../accounts/account-credentials.service';
import { AccountsService } from '../accounts/accounts.service';
import { PlatformError } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import { PostsRepository } from '../posts/services/posts.repository';
import { utcDate } from './analytics-dates';
import {
  LiveAccountDto,
  LiveAnalyticsDto,
  LiveAnalyticsQueryDto,
  LiveErrorDto,
  LivePostTargetDto,
} from './dto/analytics.dto';

/** Network calls made at once for one request. */
const CONCURRENCY = 4;

async function mapLimited<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  return out;
}

function errorOf(err: unknown): LiveErrorDto {
  if (err instanceof PlatformError) return { message: err.message, category: err.category };
  return { message: 'The network could not be reached.', category: 'network_error' };
}

/**
 * `GET /v1/analytics`: numbers read from the networks now. A network's failure is reported on
 * its entry (`error`), so one unreachable network does not hide the others.
 */
@Injectable()
export class AnalyticsLiveService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly posts: PostsRepository,
    private readonly credentials: AccountCredentialsService,
    private readonly platforms: PlatformRegistry,
  ) {}

  async live(auth: AuthContext, query: LiveAnalyticsQueryDto): Promise<LiveAnalyticsDto> {
    const fetchedAt = new Date();
    const base = { profileId: auth.profileId, fetchedAt: fetchedAt.toISOString() };
    if (query.accountId !== undefined) this.assertVisibleId(auth, query.accountId);
    if (query.postId !== undefined)
      return { ...base, accounts: [], posts: await this.postMetrics(auth, query.postId, query.accountId) };
    return { ...base, accounts: await this.accountMetrics(auth, query.accountId, fetchedAt), posts: [] };
  }

  private async accountMetrics(auth: AuthContext, accountId: string | undefined, now: Date): Promise<LiveAccountDto[]> {
    const accounts = await this.accounts.findConnected(auth, { id: accountId });
    if (accountId && accounts.length === 0) throw ApiError.notFound('account', accountId);
    const today = utcDate(now);
    return mapLimited(accounts, async (a) => {
      const entry = { accountId: a.id, platform: a.platform, name: a.name };
      try {
        const creds = await this.credentials.forPublishing(a.id);
        const [day] = await this.platforms.get(a.platform).getDailyMetrics(creds, today, today);
        const metrics = day
          ? {
              date: day.date,
              views: day.views,
              engagement: day.engagement,
              shares: day.shares,
              followers: day.followers,
              reach: day.reach,
            }
          : null;
        return { ...entry, metrics, error: null };
      } catch (err) {
        return { ...entry, metrics: null, error: errorOf(err) };
      }
    });
  }

  private async postMetrics(
    auth: AuthContext,
    postId: string,
    accountId: string | undefined,
  ): Promise<LivePostTargetDto[]> {
    // A post the key may not see (a target outside its accounts) answers like a missing one.
    const post = await this.posts.findInProfile(auth, postId);
    const targets = (await this.posts.publishedTargetsOfPost(auth, post.id, accountId)).filter((t) => t.externalId);
    return mapLimited(targets, async (t) => {
      const entry = {
        postId: post.id,
        accountId: t.accountId,
        platform: t.platform,
        externalId: t.externalId!,
        url: t.externalUrl,
      };
      try {
        const creds = await this.credentials.forPublishing(t.accountId);
        return {
          ...entry,
          metrics: await this.platforms.get(t.platform).getItemMetrics(creds, t.externalId!),
          error: null,
        };
      } catch (err) {
        return { ...entry, metrics: null, error: errorOf(err) };
      }
    });
  }

  /** An account id the key may not use answers like one that does not exist. */
  private assertVisibleId(auth: AuthContext, accountId: string): void {
    if (!isUuid(accountId) || (auth.accountIds && !auth.accountIds.includes(accountId)))
      throw ApiError.notFound('account', accountId);
  }
}
