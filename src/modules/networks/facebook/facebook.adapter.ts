import { checkContent, ContentRules } from '../kit/content-rules';
import { addDays, daysBetween } from '../kit/days';
import type {
  AccountCredentials,
  AdapterEndpoints,
  CommentRequest,
  CommentResult,
  DailyAccountMetrics,
  GrantedAccount,
  ItemMetrics,
  NetworkComment,
  OAuthTokens,
  PlatformAdapter,
  PublishContent,
  PublishRequest,
  PublishResult,
  ValidationIssue,
} from '../kit/adapter';
import { FacebookLogin } from '../kit/graph/facebook-login';
import { FetchFn, GraphClient } from '../kit/graph/graph-client';
import { GraphInsight, GraphList, insightSeries, insightTotal, unixDay } from '../kit/graph/graph-shapes';
import { FacebookPublisher } from './facebook-publish';

export const FACEBOOK_GRAPH_VERSION = 'v23.0';
export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_read_engagement',
  'pages_manage_posts',
  'pages_read_user_content',
  'pages_manage_engagement',
  'read_insights',
  'publish_video',
];
export const FACEBOOK_RULES: ContentRules = {
  label: 'Facebook',
  maxText: 63_206,
  textPost: 'text-or-link',
  images: { max: 10 },
  links: 'text-posts',
};

/** Page Insights metrics (2025+ "views" metrics) → our daily fields. */
export const FACEBOOK_PAGE_METRICS = {
  views: 'page_media_view',
  reach: 'page_total_media_view_unique',
  engagement: 'page_post_engagements',
  followers: 'page_follows',
} as const;

/** Page Insights answers at most 90 days per since/until window. */
const INSIGHTS_WINDOW_DAYS = 90;

interface PageAccount {
  id: string;
  name: string;
  username?: string;
  access_token?: string;
  category?: string;
  tasks?: string[];
  picture?: { data?: { url?: string } };
}

interface FbComment {
  id: string;
  message?: string;
  created_time: string;
  from?: { id: string; name: string };
}

interface PostStats {
  shares?: { count: number };
  comments?: { summary?: { total_count: number } };
  reactions?: { summary?: { total_count: number } };
}

/** Facebook Pages through the Graph API: Facebook Login → long-lived user token → Page tokens. */
export class FacebookAdapter implements PlatformAdapter {
  readonly platform = 'facebook' as const;
  readonly supportsComments = true;
  private readonly graph: GraphClient;
  private readonly publisher: FacebookPublisher;
  private readonly login: FacebookLogin;

  constructor(endpoints: AdapterEndpoints, fetchFn?: FetchFn) {
    this.graph = new GraphClient(endpoints.apiBaseUrl, endpoints.timeoutMs, fetchFn);
    this.publisher = new FacebookPublisher(this.graph);
    this.login = new FacebookLogin(this.graph, endpoints, FACEBOOK_SCOPES);
  }

  authorizeUrl(p: { state: string; redirectUri: string; codeChallenge: string }): string {
    return this.login.authorizeUrl(p);
  }

  /** code → short-lived user token → long-lived (~60 d) user token. */
  exchangeCode(p: { code: string; redirectUri: string; codeVerifier: string }): Promise<OAuthTokens> {
    return this.login.exchangeCode(p);
  }

  /** Facebook has no refresh tokens: a still-valid long-lived token is exchanged for a fresh one. */
  refresh(tokens: { accessToken: string; refreshToken: string | null }): Promise<OAuthTokens> {
    return this.login.longLived(tokens.accessToken);
  }

  /** Every Page the user can act on, each with its own (non-expiring) Page token. */
  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const out: GrantedAccount[] = [];
    let next: string | null = '/me/accounts';
    while (next) {
      const page: GraphList<PageAccount> = await this.graph.get<GraphList<PageAccount>>(
        next,
        next.startsWith('/') ? { fields: 'id,name,username,access_token,category,tasks,picture{url}', limit: 100 } : {},
        next.startsWith('/') ? tokens.accessToken : null,
      );
      for (const p of page.data) {
        out.push({
          platformAccountId: p.id,
          name: p.name,
          username: p.username ?? null,
          avatarUrl: p.picture?.data?.url ?? null,
          tokens: p.access_token
            ? { accessToken: p.access_token, refreshToken: null, expiresAt: null, scopes: FACEBOOK_SCOPES }
            : undefined,
          metadata: { category: p.category ?? null, tasks: p.tasks ?? [] },
        });
      }
      next = page.paging?.next ?? null;
    }
    return out;
  }

  validate(content: PublishContent): ValidationIssue[] {
    return checkContent(FACEBOOK_RULES, content);
  }

  publish(req: PublishRequest): Promise<PublishResult> {
    return this.publisher.publish(req);
  }

  findPublished(req: Omit<PublishRequest, 'saveState'>): Promise<PublishResult | null | 'unknown'> {
    return this.publisher.findPublished(req);
  }

  /** The Page comments on its own post, photo or video (Graph /{object-id}/comments). */
  postComment(req: CommentRequest): Promise<CommentResult> {
    return this.graph.comment(req.externalId, req.text, req.account.accessToken);
  }

  async getItemMetrics(account: AccountCredentials, externalId: string): Promise<ItemMetrics> {
    const token = account.accessToken;
    const stats = await this.graph.get<PostStats>(
      `/${externalId}`,
      { fields: 'shares,comments.limit(0).summary(true),reactions.limit(0).summary(true)' },
      token,
    );
    const insights = await this.graph.get<GraphList<GraphInsight>>(
      `/${externalId}/insights`,
      { metric: 'post_media_view,post_total_media_view_unique' },
      token,
    );
    const likes = stats.reactions?.summary?.total_count ?? 0;
    const comments = stats.comments?.summary?.total_count ?? 0;
    const shares = stats.shares?.count ?? 0;
    return {
      views: insightTotal(insights.data, 'post_media_view'),
      reach: insightTotal(insights.data, 'post_total_media_view_unique'),
      likes,
      comments,
      shares,
      engagement: likes + comments + shares,
    };
  }

  /** Page Insights in windows of ≤ 90 days (the API's limit), plus shares summed from the Page's posts per day. */
  async getDailyMetrics(account: AccountCredentials, from: string, to: string): Promise<DailyAccountMetrics[]> {
    const token = account.accessToken;
    const page = account.platformAccountId;
    const m = FACEBOOK_PAGE_METRICS;
    const insights: GraphInsight[] = [];
    for (let start = from; start <= to; start = addDays(start, INSIGHTS_WINDOW_DAYS)) {
      const end = addDays(start, INSIGHTS_WINDOW_DAYS - 1) < to ? addDays(start, INSIGHTS_WINDOW_DAYS - 1) : to;
      const res = await this.graph.get<GraphList<GraphInsight>>(
        `/${page}/insights`,
        { metric: Object.values(m).join(','), period: 'day', since: unixDay(start), until: unixDay(end, 1) },
        token,
      );
      insights.push(...res.data);
    }
    const series = insightSeries(insights);
    const shares = await this.sharesByDay(page, token, from, to);
    const days: DailyAccountMetrics[] = [];
    for (const date of daysBetween(from, to)) {
      const v = (k: keyof typeof m): number => series.get(m[k])?.get(date) ?? 0;
      days.push({
        date,
        views: v('views'),
        reach: v('reach'),
        engagement: v('engagement'),
        followers: v('followers'),
        shares: shares.get(date) ?? 0,
      });
    }
    return days;
  }

  private async sharesByDay(page: string, token: string, from: string, to: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    let next: string | null = `/${page}/published_posts`;
    for (let guard = 0; next && guard < 20; guard++) {
      const first = next.startsWith('/');
      const res: GraphList<{ created_time: string; shares?: { count: number } }> = await this.graph.get(
        next,
        first ? { fields: 'created_time,shares', since: unixDay(from), until: unixDay(to, 1), limit: 100 } : {},
        first ? token : null,
      );
      for (const p of res.data) {
        const day = new Date(p.created_time).toISOString().slice(0, 10);
        out.set(day, (out.get(day) ?? 0) + (p.shares?.count ?? 0));
      }
      next = res.paging?.next ?? null;
    }
    return out;
  }

  async listComments(
    account: AccountCredentials,
    externalPostId: string,
    cursor?: string | null,
  ): Promise<{ comments: NetworkComment[]; nextCursor: string | null }> {
    const res = await this.graph.get<GraphList<FbComment>>(
      `/${externalPostId}/comments`,
      {
        fields: 'id,message,created_time,from{id,name}',
        order: 'chronological',
        limit: 25,
        after: cursor ?? undefined,
      },
      account.accessToken,
    );
    return {
      comments: res.data.map((c) => ({
        id: c.id,
        externalPostId,
        authorName: c.from?.name ?? 'Facebook user',
        text: c.message ?? '',
        createdAt: new Date(c.created_time).toISOString(),
      })),
      nextCursor: res.paging?.next ? (res.paging.cursors?.after ?? null) : null,
    };
  }
}
