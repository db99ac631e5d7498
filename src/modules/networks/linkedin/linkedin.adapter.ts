import type { AdapterEndpoints, CommentRequest, CommentResult, GrantedAccount, OAuthTokens } from '../kit/adapter';
import type { PlatformAdapter, PublishLookup, PublishRequest, PublishResult } from '../kit/adapter';
import { ContentRules } from '../kit/content-rules';
import { cap, PublishingCap } from '../kit/caps';
import { arr, needed, num, obj, orIfRefused, str } from '../kit/http';
import { NetworkAdapter, PollingOptions, progress } from '../kit/network-adapter';
import { OAuth2App } from '../kit/oauth';
import { enc, escapeLittleText, LinkedInClient } from './linkedin-api';
import { LinkedInState, MediaContext, uploadImages, uploadVideo } from './linkedin-media';
import { dailyMetrics, isOrganization, itemMetrics } from './linkedin-metrics';

/**
 * LinkedIn: OAuth 2.0 (3-legged), OpenID userinfo for the member, organizationAcls for the pages
 * the member administers, the Posts API with the Images and Videos APIs for media.
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api
 */

/** The member's own scopes, then those of the organisation pages it administers. */
const LINKEDIN_SCOPES = [
  ...['openid', 'profile', 'w_member_social', 'r_member_postAnalytics'],
  ...['w_organization_social', 'r_organization_social', 'rw_organization_admin'],
];
export const LINKEDIN_RULES: ContentRules = {
  label: 'LinkedIn',
  maxText: 3000,
  textLength: (text) => text.length,
  textPost: 'text-or-link',
  images: { max: 20 },
  noImagesWithVideo: true,
};
// LinkedIn limits the calls of each member per application per day, reset at midnight UTC, and
// shows each app its figures in the Developer Portal (Analytics tab) rather than publishing
// them; 150 posts per member per day is the figure peers document (Ayrshare's LinkedIn page).
// NETWORK_CAPS=linkedin.posts_per_day=<n> sets your app's.
const RATE_LIMITS_PAGE = 'https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits';
export const LINKEDIN_CAPS: PublishingCap[] = [cap('posts_per_day', 'day_utc', 150, RATE_LIMITS_PAGE)];

const DEFAULT_POLL_DELAYS_MS = [1000, 2000, 3000, 5000, 5000, 10000, 10000, 15000];

export class LinkedInAdapter extends NetworkAdapter implements PlatformAdapter {
  static readonly real = { apiBaseUrl: 'https://api.linkedin.com', authBaseUrl: 'https://www.linkedin.com/oauth/v2' };
  readonly platform = 'linkedin' as const;
  protected readonly rules = LINKEDIN_RULES;
  private readonly client: LinkedInClient;

  constructor(endpoints: AdapterEndpoints, options: PollingOptions = {}) {
    // Programmatic refresh tokens are granted to LinkedIn partners only; without one, reconnect.
    const login = new OAuth2App(endpoints, {
      network: 'LinkedIn',
      url: `${endpoints.authBaseUrl}/authorization`,
      tokenUrl: `${endpoints.authBaseUrl}/accessToken`,
      scopes: LINKEDIN_SCOPES,
    });
    super(login, options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS);
    this.client = new LinkedInClient(endpoints);
  }

  /** The member, plus every organisation page the member administers (a page picker chooses among them). */
  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const token = tokens.accessToken;
    const me = await this.client.plain.json(token, '/v2/userinfo');
    const sub = needed(str(me.sub), 'LinkedIn userinfo returned no member id.');
    const memberUrn = `urn:li:person:${sub}`;
    const member = { platformAccountId: memberUrn, name: str(me.name) ?? sub, avatarUrl: str(me.picture) ?? null };
    const accounts: GrantedAccount[] = [{ ...member, metadata: { kind: 'member' } }];
    // Without the organisation permissions LinkedIn answers 403: the grant then covers the member only.
    const aclsPath = '/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED';
    const acls = await orIfRefused(this.client.rest.json(token, aclsPath), (err) => err.details.status === 403, null);
    if (!acls) return accounts;
    const orgUrns = new Set(arr(acls.elements).flatMap((el) => str(obj(el).organization) || []));
    for (const orgUrn of orgUrns) {
      const org = await this.client.rest.json(token, `/organizations/${orgUrn.split(':').pop() ?? ''}`);
      accounts.push({
        platformAccountId: orgUrn,
        name: str(org.localizedName) ?? orgUrn,
        username: str(org.vanityName) ?? null,
        metadata: { kind: 'organization', memberUrn },
      });
    }
    return accounts;
  }

  async publish(req: PublishRequest): Promise<PublishResult> {
    const { state, save } = progress<LinkedInState>(req);
    if (state.postUrn) return postResult(state.postUrn);
    const found = await this.lookBeforeResending(req, state.postAttemptedAt);
    if (found) return found;
    const [author, token] = [req.account.platformAccountId, req.account.accessToken];
    const { client, pollDelaysMs } = this;
    const ctx: MediaContext = { client, token, owner: author, state, save, pollDelaysMs };
    const c = req.content;
    const title = str(c.options.title);
    let content: Record<string, unknown> | undefined;
    if (c.contentType === 'video' && c.videoUrl) {
      content = { media: { id: await uploadVideo(ctx, c.videoUrl), ...(title ? { title } : {}) } };
    } else if (c.contentType === 'image' && c.imageUrls.length > 0) {
      const urns = await uploadImages(ctx, c.imageUrls);
      content = urns.length === 1 ? { media: { id: urns[0] } } : { multiImage: { images: urns.map((id) => ({ id })) } };
    } else if (c.link) {
      content = { article: { source: c.link, title: title ?? c.link } };
    }
    const body = {
      author,
      commentary: escapeLittleText(c.text),
      visibility: !isOrganization(author) && str(c.options.visibility) === 'CONNECTIONS' ? 'CONNECTIONS' : 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
      ...(content ? { content } : {}),
    };
    await save({ postAttemptedAt: new Date().toISOString() });
    const reply = await this.client.rest.call(token, '/posts', { method: 'POST', json: body, creates: true });
    const missing = 'LinkedIn accepted the post but returned no id.';
    const urn = needed(reply.headers.get('x-restli-id') ?? str(obj(reply.json).id), missing, true);
    await save({ postUrn: urn });
    return postResult(urn);
  }

  async findPublished(req: PublishLookup): Promise<PublishResult | null | 'unknown'> {
    const state = req.publishState as LinkedInState;
    if (state.postUrn) return postResult(state.postUrn);
    if (!state.postAttemptedAt) return null;
    const since = Date.parse(state.postAttemptedAt) - 120_000;
    const author = req.account.platformAccountId;
    const path = `/posts?author=${enc(author)}&q=author&count=20&sortBy=CREATED`;
    const posts = arr((await this.client.rest.json(req.account.accessToken, path)).elements);
    const commentary = [req.content.text, escapeLittleText(req.content.text)];
    const mediaIds = new Set([...(state.images ?? []), state.video?.urn].flatMap((u) => u || []));
    for (const raw of posts) {
      const post = obj(raw);
      const id = str(post.id);
      if (!id || num(post.createdAt) < since) continue;
      const sameText = commentary.includes(str(post.commentary) ?? '');
      const sameMedia = mediaIdsOf(post).some((m) => mediaIds.has(m));
      if (sameMedia || (sameText && mediaIds.size === 0)) return postResult(id);
    }
    return null;
  }

  /** The author comments on its own post; 201 answers the comment (its URN in `commentUrn`/`$URN`). */
  async postComment(req: CommentRequest): Promise<CommentResult> {
    const [urn, actor] = [req.externalId, req.account.platformAccountId];
    const json = { actor, object: urn, message: { text: req.text } };
    const path = `/socialActions/${enc(urn)}/comments`;
    const reply = await this.client.rest.call(req.account.accessToken, path, { method: 'POST', json, creates: true });
    const body = obj(reply.json);
    const id = str(body.commentUrn) ?? str(body.$URN) ?? reply.headers.get('x-restli-id') ?? str(body.id);
    return { id: needed(id, 'LinkedIn accepted the comment but returned no id.', true) };
  }

  readonly getItemMetrics: PlatformAdapter['getItemMetrics'] = (...args) => itemMetrics(this.client, ...args);
  readonly getDailyMetrics: PlatformAdapter['getDailyMetrics'] = (...args) => dailyMetrics(this.client, ...args);
}

function postResult(urn: string): PublishResult {
  return { externalId: urn, url: `https://www.linkedin.com/feed/update/${urn}/` };
}

function mediaIdsOf(post: Record<string, unknown>): string[] {
  const content = obj(post.content);
  const multi = arr(obj(content.multiImage).images).map((i) => str(obj(i).id));
  return [str(obj(content.media).id), ...multi].flatMap((u) => u || []);
}
