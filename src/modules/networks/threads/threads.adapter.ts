import type { AdapterEndpoints, GrantedAccount, OAuthTokens } from '../kit/adapter';
import type { CommentRequest, CommentResult, PlatformAdapter } from '../kit/adapter';
import { ContentRules } from '../kit/content-rules';
import { cap, PublishingCap } from '../kit/caps';
import type { Counters } from '../kit/metrics';
import type { PollingOptions } from '../kit/network-adapter';
import { ContainerAdapter, ContainerFlavor, DailyInsights } from '../kit/graph/container-adapter';
import { GraphClient } from '../kit/graph/graph-client';
import { GraphLogin, GraphTokenResponse } from '../kit/graph/graph-login';

const THREADS_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_manage_insights',
  'threads_read_replies',
  // Replies by the account (a post's first comment).
  'threads_manage_replies',
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
// "Threads profiles are limited to 250 API-published posts within a 24-hour moving period.
// Carousels count as a single post." (enforced on threads_publish; read with threads_publishing_limit)
export const THREADS_CAPS: PublishingCap[] = [
  cap('posts_per_24h', 'rolling_24h', 250, 'https://developers.facebook.com/docs/threads/overview/#posts'),
];

type ThreadsProfile = { id: string; username?: string; name?: string; threads_profile_picture_url?: string };

/**
 * Threads API (graph.threads.net): code → short-lived token → th_exchange_token (60 d) →
 * th_refresh_token, at the host root; containers and threads_publish under /v1.0.
 */
export class ThreadsAdapter extends ContainerAdapter implements PlatformAdapter {
  readonly platform = 'threads' as const;
  protected readonly rules = THREADS_RULES;
  static readonly real = {
    apiBaseUrl: 'https://graph.threads.net/v1.0',
    authBaseUrl: 'https://threads.net/oauth/authorize',
  };
  /** Threads has no reach metric; views is the closest. Shares = reposts + quotes + shares. */
  protected readonly postCounters: Counters = {
    reach: 'views',
    comments: 'replies',
    shares: ['reposts', 'quotes', 'shares'],
  };
  /** threads_insights per day; followers_count is the total at the end of the range. */
  protected readonly daily: DailyInsights = {
    edge: 'threads_insights',
    counters: { reach: 'views', comments: 'replies', shares: ['reposts', 'quotes'] },
    followers: 'metric',
  };
  protected readonly containers: ContainerFlavor = {
    containerEdge: 'threads',
    statusField: 'status',
    errorField: 'error_message',
    textField: 'text',
    limitEdge: 'threads_publishing_limit',
    childParams: (url) => ({ media_type: 'IMAGE', image_url: url, is_carousel_item: true }),
    containerParams: (c, childIds) => {
      if (childIds.length) return { media_type: 'CAROUSEL', children: childIds.join(','), text: c.text };
      if (c.contentType === 'video') return { media_type: 'VIDEO', video_url: c.videoUrl, text: c.text };
      if (c.contentType === 'image') return { media_type: 'IMAGE', image_url: c.imageUrls[0], text: c.text };
      return { media_type: 'TEXT', text: c.text, link_attachment: c.link ?? undefined };
    },
  };

  constructor(endpoints: AdapterEndpoints, options: PollingOptions = {}) {
    // graph.threads.net without the version: where /oauth/access_token, /access_token, /refresh_access_token live.
    const root = new GraphClient(endpoints.apiBaseUrl.replace(/\/v\d+(\.\d+)?$/, ''), endpoints.timeoutMs);
    // Threads' OAuth has no PKCE; state carries the CSRF protection.
    super(endpoints, options, () => new ThreadsLogin(root, endpoints, THREADS_SCOPES, false));
  }

  /** The first comment is the account's reply to its own thread: a TEXT container with `reply_to_id`, published. */
  override async postComment({ account, externalId, text }: CommentRequest): Promise<CommentResult> {
    const content = { contentType: 'text' as const, text, imageUrls: [], options: {} };
    const params = () => ({ media_type: 'TEXT', text, reply_to_id: externalId });
    const reply = await this.publishContainer(
      { account, content, publishState: {}, saveState: async () => {} },
      params,
    );
    return { id: reply.externalId };
  }

  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const fields = 'id,username,name,threads_profile_picture_url';
    const me = await this.graph.get<ThreadsProfile>('/me', { fields }, tokens.accessToken);
    const account = { platformAccountId: me.id, name: me.name ?? me.username ?? me.id, username: me.username ?? null };
    return [{ ...account, avatarUrl: me.threads_profile_picture_url ?? null, metadata: {} }];
  }
}

/** Threads' login, on the host root (`graph`). */
class ThreadsLogin extends GraphLogin {
  async exchangeCode(p: { code: string; redirectUri: string; codeVerifier: string }): Promise<OAuthTokens> {
    const grant = { grant_type: 'authorization_code', redirect_uri: p.redirectUri, code: p.code };
    const short = await this.graph.post<GraphTokenResponse>('/oauth/access_token', { ...this.app, ...grant });
    const long = { grant_type: 'th_exchange_token', client_secret: this.endpoints.clientSecret };
    return this.tokens('/access_token', { ...long, access_token: short.access_token });
  }

  /** Long-lived tokens at least 24 h old and unexpired refresh themselves (th_refresh_token). */
  refresh(tokens: { accessToken: string }): Promise<OAuthTokens> {
    return this.tokens('/refresh_access_token', { grant_type: 'th_refresh_token', access_token: tokens.accessToken });
  }
}
