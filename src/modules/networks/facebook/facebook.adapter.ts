import type { AccountCredentials, AdapterEndpoints, DailyAccountMetrics, GrantedAccount } from '../kit/adapter';
import type { ItemMetrics, OAuthTokens, PlatformAdapter } from '../kit/adapter';
import { ContentRules } from '../kit/content-rules';
import type { PublishingCap } from '../kit/caps';
import { addDays, dayOf } from '../kit/days';
import { counterNames, Counters, dayRows, itemFromCounters, sumByDay } from '../kit/metrics';
import { FacebookLogin, facebookLoginUrls } from '../kit/graph/facebook-login';
import { GraphAdapter } from '../kit/graph/graph-adapter';
import type { FetchFn } from '../kit/graph/graph-client';
import { GraphInsight, GraphList, insightSeries, unixDay } from '../kit/graph/graph-shapes';
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
// The one cap Meta publishes for Pages is the Reels API's ("limited to 30 API-published posts
// within a 24-hour moving period", POST /{page-id}/video_reels). This adapter publishes videos
// through /{page-id}/videos and text/links/photos through the feed, for which no figure is
// documented, so no Facebook target counts against it: none is declared.
export const FACEBOOK_CAPS: PublishingCap[] = [];

/** Page Insights metrics (2025+ "views" metrics) → our daily fields; shares come from the Page's posts. */
const PAGE_COUNTERS: Counters = {
  views: 'page_media_view',
  reach: 'page_total_media_view_unique',
  engagement: 'page_post_engagements',
  shares: [],
};
const FOLLOWERS_METRIC = 'page_follows';

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

type DatedPost = { created_time: string; shares?: { count: number } };

/** Facebook Pages through the Graph API: Facebook Login → long-lived user token → Page tokens. */
export class FacebookAdapter extends GraphAdapter implements PlatformAdapter {
  static readonly real = facebookLoginUrls(FACEBOOK_GRAPH_VERSION);
  readonly platform = 'facebook' as const;
  override readonly supportsComments = true;
  protected readonly rules = FACEBOOK_RULES;
  protected readonly publisher: FacebookPublisher;
  /** A post's insights, and (summed from its fields) its reactions, comments and shares. */
  protected readonly postCounters: Counters = {
    views: 'post_media_view',
    reach: 'post_total_media_view_unique',
    likes: 'reactions',
  };

  constructor(endpoints: AdapterEndpoints, fetchFn?: FetchFn) {
    super(endpoints, fetchFn, (graph) => new FacebookLogin(graph, endpoints, FACEBOOK_SCOPES));
    this.publisher = new FacebookPublisher(this.graph);
  }

  /** Every Page the user can act on, each with its own (non-expiring) Page token. */
  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const fields = 'id,name,username,access_token,category,tasks,picture{url}';
    const pages = await this.graph.list<PageAccount>('/me/accounts', { fields, limit: 100 }, tokens.accessToken);
    return pages.map((p) => ({
      platformAccountId: p.id,
      name: p.name,
      username: p.username ?? null,
      avatarUrl: p.picture?.data?.url ?? null,
      tokens: p.access_token
        ? { accessToken: p.access_token, refreshToken: null, expiresAt: null, scopes: FACEBOOK_SCOPES }
        : undefined,
      metadata: { category: p.category ?? null, tasks: p.tasks ?? [] },
    }));
  }

  override async getItemMetrics(account: AccountCredentials, externalId: string): Promise<ItemMetrics> {
    const token = account.accessToken;
    const fields = 'shares,comments.limit(0).summary(true),reactions.limit(0).summary(true)';
    const stats = await this.graph.get<PostStats>(`/${externalId}`, { fields }, token);
    const counts: Record<string, number | undefined> = {
      reactions: stats.reactions?.summary?.total_count,
      comments: stats.comments?.summary?.total_count,
      shares: stats.shares?.count,
    };
    // The post's insights are the counters its fields do not give.
    const metrics = counterNames(this.postCounters, 'item').filter((name) => !(name in counts));
    const insight = await this.insights(`/${externalId}/insights`, metrics, token);
    return itemFromCounters(this.postCounters, (name) => counts[name] ?? insight(name));
  }

  /** Page Insights in windows of ≤ 90 days (the API's limit), plus shares summed from the Page's posts per day. */
  async getDailyMetrics(account: AccountCredentials, from: string, to: string): Promise<DailyAccountMetrics[]> {
    const { accessToken: token, platformAccountId: page } = account;
    const insights: GraphInsight[] = [];
    const metric = [...counterNames(PAGE_COUNTERS, 'day'), FOLLOWERS_METRIC].join(',');
    for (let start = from; start <= to; start = addDays(start, INSIGHTS_WINDOW_DAYS)) {
      const end = addDays(start, INSIGHTS_WINDOW_DAYS - 1) < to ? addDays(start, INSIGHTS_WINDOW_DAYS - 1) : to;
      const query = { metric, period: 'day', since: unixDay(start), until: unixDay(end, 1) };
      insights.push(...(await this.graph.get<GraphList<GraphInsight>>(`/${page}/insights`, query, token)).data);
    }
    const series = insightSeries(insights);
    const postsQuery = { fields: 'created_time,shares', since: unixDay(from), until: unixDay(to, 1), limit: 100 };
    const posts = await this.graph.list<DatedPost>(`/${page}/published_posts`, postsQuery, token, 20);
    const shares = sumByDay(posts, (p) => [dayOf(p.created_time), { shares: p.shares?.count ?? 0 }]);
    const read = (name: string, date: string): number => series.get(name)?.get(date) ?? 0;
    const rows = dayRows({ from, to }, PAGE_COUNTERS, (date) => read(FOLLOWERS_METRIC, date), read);
    return rows.map((row) => ({ ...row, shares: shares.get(row.date)?.shares ?? 0 }));
  }

  override listComments(account: AccountCredentials, postId: string, cursor?: string | null) {
    const params = { fields: 'id,message,created_time,from{id,name}', order: 'chronological' };
    return this.commentPage<FbComment>(postId, account.accessToken, cursor, params, (c) => ({
      id: c.id,
      authorName: c.from?.name ?? 'Facebook user',
      text: c.message ?? '',
      createdAt: new Date(c.created_time).toISOString(),
    }));
  }
}
