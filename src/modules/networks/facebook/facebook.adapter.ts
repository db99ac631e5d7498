import type { AccountCredentials, AdapterEndpoints, DailyAccountMetrics, GrantedAccount } from '../kit/adapter';
import type { ItemMetrics, OAuthTokens, PlatformAdapter, PublishLookup, PublishRequest } from '../kit/adapter';
import { PlatformError, type PublishResult } from '../kit/adapter';
import { ContentRules } from '../kit/content-rules';
import type { PublishingCap } from '../kit/caps';
import { addDays, dayOf, unixDay } from '../kit/days';
import { counterNames, Counters, dayRows, itemFromCounters, sumByDay } from '../kit/metrics';
import { FacebookLogin, facebookLoginUrls } from '../kit/graph/facebook-login';
import { GraphAdapter, GraphComments } from '../kit/graph/graph-adapter';
import type { GraphInsight, GraphList, GraphParams } from '../kit/graph/graph-client';
import { progress } from '../kit/network-adapter';
import { arr, type Json, needed, num, obj, str } from '../kit/http';

export const FACEBOOK_GRAPH_VERSION = 'v23.0';
const FACEBOOK_SCOPES = [
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
// Meta's one Page cap is the Reels API's (30 posts per 24 h, POST /{page-id}/video_reels); this
// adapter publishes through /videos and the feed, for which none is documented: none is declared.
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

type Count = { summary?: { total_count: number } };
type PostStats = { shares?: { count: number }; comments?: Count; reactions?: Count };

/**
 * Facebook Page publishing: text/link → POST /{page-id}/feed; 1 photo → /photos { url, caption };
 * 2–10 → /photos { published=false } each, then /feed { attached_media[i] }; video → /videos.
 */
type FacebookPublishState = {
  kind?: 'feed' | 'photo' | 'album' | 'video';
  photoIds?: string[];
  /** When the creating call was sent (ISO); present = the post may exist. */
  sentAt?: string;
  postId?: string;
};

type PhotoResponse = { id: string; post_id?: string };

/** Facebook Pages through the Graph API: Facebook Login → long-lived user token → Page tokens. */
export class FacebookAdapter extends GraphAdapter implements PlatformAdapter {
  static readonly real = facebookLoginUrls(FACEBOOK_GRAPH_VERSION);
  readonly platform = 'facebook' as const;
  override readonly supportsComments = true;
  protected readonly rules = FACEBOOK_RULES;
  protected readonly permalink = 'permalink_url';
  /** A post's insights, and (summed from its fields) its reactions, comments and shares. */
  protected readonly postCounters: Counters = {
    views: 'post_media_view',
    reach: 'post_total_media_view_unique',
    likes: 'reactions',
  };
  protected override readonly comments: GraphComments = {
    params: { fields: 'id,message,created_time,from{id,name}', order: 'chronological' },
    text: 'message',
    time: 'created_time',
    author: (c) => str(obj(c.from).name),
    anonymous: 'Facebook user',
  };

  constructor(endpoints: AdapterEndpoints) {
    super(endpoints, (graph) => new FacebookLogin(graph, endpoints, FACEBOOK_SCOPES));
  }

  async publish(req: PublishRequest): Promise<PublishResult> {
    const { content, account } = req;
    const [page, token] = [account.platformAccountId, account.accessToken];
    const { state, save } = progress<FacebookPublishState>(req);
    if (state.postId) return this.result(state.postId, token);
    const found = await this.lookBeforeResending(req, state.sentAt);
    if (found) return found;
    type Kind = FacebookPublishState['kind'];
    // The creating call's kind and time are saved before it is sent (as are the photo ids before each next call):
    // if its answer is lost, the next attempt looks for the post (lookBeforeResending) instead of resending blindly.
    const send = async <T extends { id: string }>(kind: Kind, edge: string, params: GraphParams): Promise<T> => {
      await save({ kind, sentAt: new Date().toISOString() });
      return this.graph.create<T>(`/${page}/${edge}`, params, token);
    };
    let postId: string;
    if (content.contentType === 'video') {
      if (!content.videoUrl) throw new PlatformError('A video post needs a video.', 'invalid_content', false);
      const title = str(content.options.title) || undefined;
      postId = (await send('video', 'videos', { file_url: content.videoUrl, description: content.text, title })).id;
    } else if (content.contentType === 'image' && content.imageUrls.length === 1) {
      const params = { url: content.imageUrls[0], caption: content.text, published: true };
      const res = await send<PhotoResponse>('photo', 'photos', params);
      postId = res.post_id ?? `${page}_${res.id}`;
    } else if (content.contentType === 'image') {
      const photoIds = [...(state.photoIds ?? [])];
      for (const url of content.imageUrls.slice(photoIds.length)) {
        // Unpublished photos are invisible until attached, so a lost answer here only leaves an orphan.
        const res = await this.graph.post<PhotoResponse>(`/${page}/photos`, { url, published: false }, token);
        photoIds.push(res.id);
        await save({ kind: 'album', photoIds });
      }
      const attached: Record<string, string> = {};
      photoIds.forEach((id, i) => (attached[`attached_media[${i}]`] = JSON.stringify({ media_fbid: id })));
      postId = (await send('album', 'feed', { message: content.text, ...attached })).id;
    } else {
      postId = (await send('feed', 'feed', { message: content.text, link: content.link })).id;
    }
    await save({ postId });
    return this.result(postId, token);
  }

  async findPublished(req: PublishLookup): Promise<PublishResult | null | 'unknown'> {
    const state = req.publishState as FacebookPublishState;
    const [page, token] = [req.account.platformAccountId, req.account.accessToken];
    if (state.postId) return this.result(state.postId, token);
    if (!state.sentAt) return null;
    const since = Math.floor(Date.parse(state.sentAt) / 1000) - 120;
    const [edge, text] = state.kind === 'video' ? ['videos', 'description'] : ['published_posts', 'message'];
    // A post without the text field is not the one looked for, even when the text is empty.
    const fields = { text, time: 'created_time', link: this.permalink, textRequired: true };
    const path = `/${page}/${edge}`;
    return this.graph.findRecent(path, { since, limit: 50 }, token, fields, req.content.text, since * 1000);
  }

  /** Every Page the user can act on, each with its own (non-expiring) Page token. */
  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const fields = 'id,name,username,access_token,category,tasks,picture{url}';
    const pages = await this.graph.list<Json>('/me/accounts', { fields, limit: 100 }, tokens.accessToken);
    return pages.map((p) => {
      const token = str(p.access_token);
      return {
        platformAccountId: needed(str(p.id), 'Facebook listed a Page without an id.'),
        name: str(p.name) ?? '',
        username: str(p.username) ?? null,
        avatarUrl: str(obj(obj(p.picture).data).url) ?? null,
        tokens: token
          ? { accessToken: token, refreshToken: null, expiresAt: null, scopes: FACEBOOK_SCOPES }
          : undefined,
        metadata: { category: str(p.category) ?? null, tasks: arr(p.tasks) },
      };
    });
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
    // `<metric> <day>` → the metric's value that day.
    const series = new Map<string, number>();
    const metric = [...counterNames(PAGE_COUNTERS, 'day'), FOLLOWERS_METRIC].join(',');
    for (let start = from; start <= to; start = addDays(start, INSIGHTS_WINDOW_DAYS)) {
      const last = addDays(start, INSIGHTS_WINDOW_DAYS - 1) < to ? addDays(start, INSIGHTS_WINDOW_DAYS - 1) : to;
      const query = { metric, period: 'day', since: unixDay(start), until: unixDay(last, 1) };
      const { data } = await this.graph.get<GraphList<GraphInsight>>(`/${page}/insights`, query, token);
      for (const { name, values } of data)
        for (const { end_time: end, value } of values ?? [])
          // A value's end_time ends its day: it covers the day before.
          if (end && typeof value === 'number') series.set(`${name} ${dayOf(Date.parse(end) - 86_400_000)}`, value);
    }
    const postsQuery = { fields: 'created_time,shares', since: unixDay(from), until: unixDay(to, 1), limit: 100 };
    const posts = await this.graph.list<Json>(`/${page}/published_posts`, postsQuery, token, 20);
    const shares = sumByDay(posts, (p) => [dayOf(str(p.created_time) ?? ''), { shares: num(obj(p.shares).count) }]);
    const read = (name: string, date: string): number => series.get(`${name} ${date}`) ?? 0;
    const rows = dayRows({ from, to }, PAGE_COUNTERS, (date) => read(FOLLOWERS_METRIC, date), read);
    return rows.map((row) => ({ ...row, shares: shares.get(row.date)?.shares ?? 0 }));
  }
}
