import { checkContent, ContentRules, isCarousel } from '../kit/content-rules';
import { consentUrl, ConsentParams } from '../kit/oauth';
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
import { FetchFn, GraphClient } from '../kit/graph/graph-client';
import {
  expiresAt,
  GraphInsight,
  GraphList,
  GraphPublishingLimit,
  GraphTokenResponse,
  insightTotal,
  publishingLimitUsage,
  unixDay,
} from '../kit/graph/graph-shapes';
import type { NetworkCapUsage } from '../kit/caps';

export const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_insights',
  'threads_read_replies',
];
export const THREADS_RULES: ContentRules = {
  label: 'Threads',
  maxText: 500,
  // Threads counts emojis as their UTF-8 byte length.
  textLength: (text) =>
    [...text].reduce((n, ch) => n + (/\p{Extended_Pictographic}/u.test(ch) ? Buffer.byteLength(ch) : 1), 0),
  textPost: 'text',
  images: { max: 20, carouselMin: 2 },
  links: 'text-posts',
};

const MAX_DAYS = 93;

/**
 * Threads API (graph.threads.net): threads.net/oauth/authorize → /oauth/access_token (short-lived)
 * → th_exchange_token (60 d) → th_refresh_token; containers (TEXT/IMAGE/VIDEO/CAROUSEL) +
 * threads_publish. Token endpoints live at the host root, the API under /v1.0.
 */
export class ThreadsAdapter implements PlatformAdapter {
  readonly platform = 'threads' as const;
  readonly supportsComments = false;
  private readonly graph: GraphClient;
  /** graph.threads.net without the version: where /oauth/access_token, /access_token, /refresh_access_token live. */
  private readonly root: GraphClient;
  private readonly publisher: ContainerPublisher;

  constructor(
    private readonly endpoints: AdapterEndpoints,
    fetchFn?: FetchFn,
    poll?: PollOptions,
  ) {
    this.graph = new GraphClient(endpoints.apiBaseUrl, endpoints.timeoutMs, fetchFn);
    this.root = new GraphClient(endpoints.apiBaseUrl.replace(/\/v\d+(\.\d+)?$/, ''), endpoints.timeoutMs, fetchFn);
    this.publisher = new ContainerPublisher(
      this.graph,
      {
        containerEdge: 'threads',
        publishEdge: 'threads_publish',
        statusField: 'status',
        errorField: 'error_message',
        textField: 'text',
        childParams: (url) => ({ media_type: 'IMAGE', image_url: url, is_carousel_item: true }),
        containerParams: (c, childIds) => {
          if (childIds.length) return { media_type: 'CAROUSEL', children: childIds.join(','), text: c.text };
          if (c.contentType === 'video') return { media_type: 'VIDEO', video_url: c.videoUrl, text: c.text };
          if (c.contentType === 'image') return { media_type: 'IMAGE', image_url: c.imageUrls[0], text: c.text };
          return { media_type: 'TEXT', text: c.text, link_attachment: c.link ?? undefined };
        },
      },
      poll ?? pollWithin(endpoints.processingWaitMs),
    );
  }

  authorizeUrl(p: ConsentParams): string {
    // Threads' OAuth has no PKCE; state carries the CSRF protection.
    const page = { url: this.endpoints.authBaseUrl, scopes: THREADS_SCOPES, scopeSeparator: ',', pkce: false };
    return consentUrl(page, this.endpoints.clientId, p);
  }

  async exchangeCode(p: { code: string; redirectUri: string; codeVerifier: string }): Promise<OAuthTokens> {
    const { clientId, clientSecret } = this.endpoints;
    const short = await this.root.post<GraphTokenResponse>('/oauth/access_token', {
      client_id: clientId,
      client_secret: clientSecret,
      grant_type: 'authorization_code',
      redirect_uri: p.redirectUri,
      code: p.code,
    });
    const now = Date.now();
    const long = await this.root.get<GraphTokenResponse>('/access_token', {
      grant_type: 'th_exchange_token',
      client_secret: clientSecret,
      access_token: short.access_token,
    });
    return {
      accessToken: long.access_token,
      refreshToken: null,
      expiresAt: expiresAt(long.expires_in, now),
      scopes: THREADS_SCOPES,
    };
  }

  /** Long-lived tokens at least 24 h old and unexpired refresh themselves (th_refresh_token). */
  async refresh(tokens: { accessToken: string; refreshToken: string | null }): Promise<OAuthTokens> {
    const now = Date.now();
    const res = await this.root.get<GraphTokenResponse>('/refresh_access_token', {
      grant_type: 'th_refresh_token',
      access_token: tokens.accessToken,
    });
    return {
      accessToken: res.access_token,
      refreshToken: null,
      expiresAt: expiresAt(res.expires_in, now),
      scopes: THREADS_SCOPES,
    };
  }

  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const me = await this.graph.get<{
      id: string;
      username?: string;
      name?: string;
      threads_profile_picture_url?: string;
    }>('/me', { fields: 'id,username,name,threads_profile_picture_url' }, tokens.accessToken);
    return [
      {
        platformAccountId: me.id,
        name: me.name ?? me.username ?? me.id,
        username: me.username ?? null,
        avatarUrl: me.threads_profile_picture_url ?? null,
        metadata: {},
      },
    ];
  }

  validate(content: PublishContent): ValidationIssue[] {
    return checkContent(THREADS_RULES, content);
  }

  publish(req: PublishRequest): Promise<PublishResult> {
    return this.publisher.publish(req, isCarousel(THREADS_RULES, req.content));
  }

  checkProcessing(req: Omit<PublishRequest, 'saveState'>): Promise<ProcessingCheck> {
    return this.publisher.checkProcessing(req);
  }

  findPublished(req: Omit<PublishRequest, 'saveState'>): Promise<PublishResult | null | 'unknown'> {
    return this.publisher.findPublished(req);
  }

  /** The 250 posts per 24 h cap as Threads counts it (threads_publishing_limit). */
  async publishingUsage(account: AccountCredentials): Promise<NetworkCapUsage> {
    return publishingLimitUsage(
      await this.graph.get<GraphList<GraphPublishingLimit>>(
        `/${account.platformAccountId}/threads_publishing_limit`,
        { fields: 'quota_usage,config' },
        account.accessToken,
      ),
    );
  }

  /** Threads has no reach metric; views is the closest. Shares = reposts + quotes + shares. */
  async getItemMetrics(account: AccountCredentials, externalId: string): Promise<ItemMetrics> {
    const res = await this.graph.get<GraphList<GraphInsight>>(
      `/${externalId}/insights`,
      { metric: 'views,likes,replies,reposts,quotes,shares' },
      account.accessToken,
    );
    const v = (name: string): number => insightTotal(res.data, name);
    const shares = v('reposts') + v('quotes') + v('shares');
    return {
      views: v('views'),
      reach: v('views'),
      likes: v('likes'),
      comments: v('replies'),
      shares,
      engagement: v('likes') + v('replies') + shares,
    };
  }

  /** One threads_insights call per day; followers_count is the total at the end of the range. */
  async getDailyMetrics(account: AccountCredentials, from: string, to: string): Promise<DailyAccountMetrics[]> {
    const out: DailyAccountMetrics[] = [];
    for (const date of daysBetween(from, to, MAX_DAYS)) {
      const res = await this.graph.get<GraphList<GraphInsight>>(
        `/${account.platformAccountId}/threads_insights`,
        { metric: 'views,likes,replies,reposts,quotes,followers_count', since: unixDay(date), until: unixDay(date, 1) },
        account.accessToken,
      );
      const v = (name: string): number => insightTotal(res.data, name);
      const shares = v('reposts') + v('quotes');
      out.push({
        date,
        views: v('views'),
        reach: v('views'),
        engagement: v('likes') + v('replies') + shares,
        shares,
        followers: v('followers_count'),
      });
    }
    return out;
  }

  async listComments(): Promise<{ comments: NetworkComment[]; nextCursor: string | null }> {
    return { comments: [], nextCursor: null };
  }
}
