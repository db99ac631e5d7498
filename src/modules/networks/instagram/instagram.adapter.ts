import { PlatformError } from '../kit/adapter';
import { checkContent, ContentRules, isCarousel } from '../kit/content-rules';
import { daysBetween } from '../kit/days';
import type {
  AccountCredentials,
  AdapterEndpoints,
  DailyAccountMetrics,
  GrantedAccount,
  ItemMetrics,
  NetworkComment,
  OAuthTokens,
  PlatformAdapter,
  ProcessingCheck,
  PublishContent,
  PublishRequest,
  PublishResult,
  ValidationIssue,
} from '../kit/adapter';
import { ContainerPublisher, PollOptions, pollWithin } from '../kit/graph/container-publisher';
import { FacebookLogin } from '../kit/graph/facebook-login';
import { FetchFn, GraphClient } from '../kit/graph/graph-client';
import type { NetworkCapUsage } from '../kit/caps';
import {
  GraphInsight,
  GraphList,
  GraphPublishingLimit,
  insightTotal,
  publishingLimitUsage,
  unixDay,
} from '../kit/graph/graph-shapes';

export const INSTAGRAM_GRAPH_VERSION = 'v23.0';
export const INSTAGRAM_SCOPES = [
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_comments',
  'instagram_manage_insights',
  'pages_show_list',
  'pages_read_engagement',
  'business_management',
];
export const INSTAGRAM_RULES: ContentRules = {
  label: 'Instagram',
  maxText: 2_200,
  maxHashtags: 30,
  images: { max: 10, carouselMin: 2 },
  links: 'never',
};

const MAX_DAYS = 93;

interface PageWithIg {
  id: string;
  name: string;
  instagram_business_account?: { id: string; username?: string; name?: string; profile_picture_url?: string };
}

interface IgComment {
  id: string;
  text?: string;
  username?: string;
  timestamp: string;
}

/**
 * Instagram professional accounts through the Instagram API with Facebook Login (graph.facebook.com):
 * the accounts are the `instagram_business_account`s of the user's Pages; publishing uses
 * media containers (image_url / video_url as REELS / CAROUSEL children) and media_publish.
 */
export class InstagramAdapter implements PlatformAdapter {
  readonly platform = 'instagram' as const;
  readonly supportsComments = true;
  private readonly graph: GraphClient;
  private readonly publisher: ContainerPublisher;
  private readonly login: FacebookLogin;

  constructor(endpoints: AdapterEndpoints, fetchFn?: FetchFn, poll?: PollOptions) {
    this.graph = new GraphClient(endpoints.apiBaseUrl, endpoints.timeoutMs, fetchFn);
    this.login = new FacebookLogin(this.graph, endpoints, INSTAGRAM_SCOPES);
    this.publisher = new ContainerPublisher(
      this.graph,
      {
        containerEdge: 'media',
        publishEdge: 'media_publish',
        statusField: 'status_code',
        errorField: 'status',
        textField: 'caption',
        childParams: (url) => ({ image_url: url, is_carousel_item: true }),
        containerParams: (c, childIds) => {
          if (childIds.length) return { media_type: 'CAROUSEL', children: childIds.join(','), caption: c.text };
          if (c.contentType === 'video')
            return { media_type: 'REELS', video_url: c.videoUrl, caption: c.text, share_to_feed: true };
          return { image_url: c.imageUrls[0], caption: c.text };
        },
        beforePublish: (user, token) => this.checkPublishingLimit(user, token),
      },
      poll ?? pollWithin(endpoints.processingWaitMs),
    );
  }

  authorizeUrl(p: { state: string; redirectUri: string; codeChallenge: string }): string {
    return this.login.authorizeUrl(p);
  }

  exchangeCode(p: { code: string; redirectUri: string; codeVerifier: string }): Promise<OAuthTokens> {
    return this.login.exchangeCode(p);
  }

  /** A still-valid long-lived user token is exchanged for a fresh one (no refresh tokens). */
  refresh(tokens: { accessToken: string; refreshToken: string | null }): Promise<OAuthTokens> {
    return this.login.longLived(tokens.accessToken);
  }

  /** The Instagram professional accounts linked to the user's Pages (they act with the user token). */
  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const out: GrantedAccount[] = [];
    let next: string | null = '/me/accounts';
    while (next) {
      const first = next.startsWith('/');
      const res: GraphList<PageWithIg> = await this.graph.get(
        next,
        first ? { fields: 'id,name,instagram_business_account{id,username,name,profile_picture_url}', limit: 100 } : {},
        first ? tokens.accessToken : null,
      );
      for (const page of res.data) {
        const ig = page.instagram_business_account;
        if (!ig) continue;
        out.push({
          platformAccountId: ig.id,
          name: ig.name ?? ig.username ?? page.name,
          username: ig.username ?? null,
          avatarUrl: ig.profile_picture_url ?? null,
          metadata: { pageId: page.id, pageName: page.name },
        });
      }
      next = res.paging?.next ?? null;
    }
    return out;
  }

  validate(content: PublishContent): ValidationIssue[] {
    return checkContent(INSTAGRAM_RULES, content);
  }

  publish(req: PublishRequest): Promise<PublishResult> {
    return this.publisher.publish(req, isCarousel(INSTAGRAM_RULES, req.content));
  }

  checkProcessing(req: Omit<PublishRequest, 'saveState'>): Promise<ProcessingCheck> {
    return this.publisher.checkProcessing(req);
  }

  findPublished(req: Omit<PublishRequest, 'saveState'>): Promise<PublishResult | null | 'unknown'> {
    return this.publisher.findPublished(req);
  }

  /** The rolling 24 h publishing cap (content_publishing_limit): refused before media_publish once reached. */
  private async checkPublishingLimit(user: string, token: string): Promise<void> {
    const usage = await this.readPublishingLimit(user, token);
    if (usage.exhausted) {
      throw new PlatformError(
        `This Instagram account reached its limit of ${usage.limit} posts per 24 hours.`,
        'network_rate_limited',
        true,
        { retryAfterSeconds: 3600 },
      );
    }
  }

  publishingUsage(account: AccountCredentials): Promise<NetworkCapUsage> {
    return this.readPublishingLimit(account.platformAccountId, account.accessToken);
  }

  private async readPublishingLimit(user: string, token: string): Promise<NetworkCapUsage> {
    return publishingLimitUsage(
      await this.graph.get<GraphList<GraphPublishingLimit>>(
        `/${user}/content_publishing_limit`,
        { fields: 'quota_usage,config' },
        token,
      ),
    );
  }

  async getItemMetrics(account: AccountCredentials, externalId: string): Promise<ItemMetrics> {
    const res = await this.graph.get<GraphList<GraphInsight>>(
      `/${externalId}/insights`,
      { metric: 'views,reach,likes,comments,shares,saved,total_interactions' },
      account.accessToken,
    );
    const v = (name: string): number => insightTotal(res.data, name);
    return {
      views: v('views'),
      reach: v('reach'),
      likes: v('likes'),
      comments: v('comments'),
      shares: v('shares'),
      engagement: v('total_interactions'),
    };
  }

  /**
   * One total_value call per day (account insights give day totals, not series, for these
   * metrics). Instagram keeps no follower history, so every day carries today's followers_count.
   */
  async getDailyMetrics(account: AccountCredentials, from: string, to: string): Promise<DailyAccountMetrics[]> {
    const token = account.accessToken;
    const user = account.platformAccountId;
    const { followers_count: followers = 0 } = await this.graph.get<{ followers_count?: number }>(
      `/${user}`,
      { fields: 'followers_count' },
      token,
    );
    const out: DailyAccountMetrics[] = [];
    for (const date of daysBetween(from, to, MAX_DAYS)) {
      const res = await this.graph.get<GraphList<GraphInsight>>(
        `/${user}/insights`,
        {
          metric: 'views,reach,total_interactions,shares',
          period: 'day',
          metric_type: 'total_value',
          since: unixDay(date),
          until: unixDay(date, 1),
        },
        token,
      );
      const v = (name: string): number => insightTotal(res.data, name);
      out.push({
        date,
        views: v('views'),
        reach: v('reach'),
        engagement: v('total_interactions'),
        shares: v('shares'),
        followers,
      });
    }
    return out;
  }

  async listComments(
    account: AccountCredentials,
    externalPostId: string,
    cursor?: string | null,
  ): Promise<{ comments: NetworkComment[]; nextCursor: string | null }> {
    const res = await this.graph.get<GraphList<IgComment>>(
      `/${externalPostId}/comments`,
      { fields: 'id,text,username,timestamp', limit: 25, after: cursor ?? undefined },
      account.accessToken,
    );
    return {
      comments: res.data.map((c) => ({
        id: c.id,
        externalPostId,
        authorName: c.username ?? 'instagram user',
        text: c.text ?? '',
        createdAt: new Date(c.timestamp).toISOString(),
      })),
      nextCursor: res.paging?.next ? (res.paging.cursors?.after ?? null) : null,
    };
  }
}
