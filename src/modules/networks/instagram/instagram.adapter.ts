import type { AdapterEndpoints, GrantedAccount, OAuthTokens, PlatformAdapter } from '../kit/adapter';
import { PlatformError } from '../kit/adapter';
import { ContentRules } from '../kit/content-rules';
import { cap, type PublishingCap } from '../kit/caps';
import type { Counters } from '../kit/metrics';
import { FacebookLogin, facebookLoginUrls } from '../kit/graph/facebook-login';
import { ContainerAdapter, ContainerFlavor, DailyInsights } from '../kit/graph/container-adapter';
import type { GraphComments } from '../kit/graph/graph-adapter';
import { type Json, needed, obj, str } from '../kit/http';
import type { PollingOptions } from '../kit/network-adapter';

export const INSTAGRAM_GRAPH_VERSION = 'v23.0';
const INSTAGRAM_SCOPES = [
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
// "Instagram accounts are limited to 100 API-published posts within a 24-hour moving period.
// Carousels count as a single post." (enforced on media_publish; read with content_publishing_limit)
const CAP_DOC = 'https://developers.facebook.com/docs/instagram-platform/content-publishing/#rate-limit';
export const INSTAGRAM_CAPS: PublishingCap[] = [cap('posts_per_24h', 'rolling_24h', 100, CAP_DOC)];

/** Instagram API with Facebook Login: the accounts are the `instagram_business_account`s of the user's Pages. */
export class InstagramAdapter extends ContainerAdapter implements PlatformAdapter {
  static readonly real = facebookLoginUrls(INSTAGRAM_GRAPH_VERSION);
  readonly platform = 'instagram' as const;
  override readonly supportsComments = true;
  protected readonly rules = INSTAGRAM_RULES;
  /** Media and account insights name their metrics as we do, engagement aside. */
  protected readonly postCounters: Counters = { engagement: 'total_interactions' };
  /** Account insights give day totals (total_value), not series, for these metrics; no follower history. */
  protected readonly daily: DailyInsights = {
    edge: 'insights',
    counters: this.postCounters,
    params: { period: 'day', metric_type: 'total_value' },
    followers: 'account-field',
  };
  protected override readonly comments: GraphComments = {
    params: { fields: 'id,text,username,timestamp' },
    text: 'text',
    time: 'timestamp',
    author: (c) => str(c.username),
    anonymous: 'instagram user',
  };
  protected readonly containers: ContainerFlavor = {
    containerEdge: 'media',
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
    limitEdge: 'content_publishing_limit',
    // The rolling 24 h cap: refused before media_publish once reached.
    beforePublish: (usage) => {
      if (!usage.exhausted) return;
      const reached = `This Instagram account reached its limit of ${usage.limit} posts per 24 hours.`;
      throw new PlatformError(reached, 'network_rate_limited', true, { retryAfterSeconds: 3600 });
    },
  };

  constructor(endpoints: AdapterEndpoints, options: PollingOptions = {}) {
    super(endpoints, options, (graph) => new FacebookLogin(graph, endpoints, INSTAGRAM_SCOPES));
  }

  /** The Instagram professional accounts linked to the user's Pages (they act with the user token). */
  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const fields = 'id,name,instagram_business_account{id,username,name,profile_picture_url}';
    const pages = await this.graph.list<Json>('/me/accounts', { fields, limit: 100 }, tokens.accessToken);
    return pages.flatMap((page) => {
      if (!page.instagram_business_account) return [];
      const [ig, pageId, pageName] = [obj(page.instagram_business_account), str(page.id), str(page.name) ?? ''];
      const id = needed(str(ig.id), 'Facebook listed an Instagram account without an id.');
      const username = str(ig.username) ?? null;
      const account = { platformAccountId: id, name: str(ig.name) ?? username ?? pageName, username };
      return [{ ...account, avatarUrl: str(ig.profile_picture_url) ?? null, metadata: { pageId, pageName } }];
    });
  }
}
