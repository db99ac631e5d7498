import type { AccountCredentials, AdapterEndpoints, GrantedAccount, OAuthTokens } from '../kit/adapter';
import type { PlatformAdapter, ProcessingCheck, PublishContent, PublishLookup } from '../kit/adapter';
import type { PublishRequest, PublishResult } from '../kit/adapter';
import { PlatformError, StillProcessingError } from '../kit/adapter';
import { ContentRules } from '../kit/content-rules';
import { cap, type NetworkCapUsage, type PublishingCap } from '../kit/caps';
import { arr, type Json, needed, obj, orIfRefused, pollOrThrow, pollUntil, str } from '../kit/http';
import { NetworkAdapter, PollingOptions, progress } from '../kit/network-adapter';
import { OAuth2App } from '../kit/oauth';
import { failReasonError, publicPostIds, TikTokApi } from './tiktok-api';
import { dailyMetrics, itemMetrics, listVideos } from './tiktok-metrics';

/**
 * TikTok Content Posting API (Direct Post): creator_info → video/init or content/init with
 * PULL_FROM_URL → poll status/fetch until PUBLISH_COMPLETE or FAILED.
 * https://developers.tiktok.com/doc/content-posting-api-reference-direct-post
 */

const TIKTOK_SCOPES = ['user.info.basic', 'user.info.profile', 'user.info.stats', 'video.publish', 'video.list'];
export const TIKTOK_RULES: ContentRules = {
  label: 'TikTok',
  maxText: 2200,
  textLength: (text) => text.length,
  images: { max: 35 },
  // Photo posts and videos only: a text post is refused by its content type.
  mediaField: 'contentType',
};
// TikTok answers spam_risk_too_many_posts when "the daily post cap from the API is reached for
// the current user" but publishes no figure; 15 Direct Posts per creator per day is the figure
// integrators report. NETWORK_CAPS=tiktok.posts_per_day=<n> sets the one TikTok told you.
// creator_info/query answers the same error once the cap is reached (read by publishingUsage).
export const TIKTOK_CAPS: PublishingCap[] = [
  cap('posts_per_day', 'day_utc', 15, 'https://developers.tiktok.com/doc/content-posting-api-reference-direct-post'),
];

const DEFAULT_POLL_DELAYS_MS = [2000, 3000, 5000, 5000, 10000, 10000, 15000, 15000];

type Settled = Extract<ProcessingCheck, { status: 'published' | 'failed' }>;

interface TikTokState {
  /** Set just before video/init or content/init: from here on a publish may exist. */
  initAttemptedAt?: string;
  publishId?: string;
  postId?: string;
}

export class TikTokAdapter extends NetworkAdapter implements PlatformAdapter {
  static readonly real = { apiBaseUrl: 'https://open.tiktokapis.com', authBaseUrl: 'https://www.tiktok.com' };
  readonly platform = 'tiktok' as const;
  protected readonly rules = TIKTOK_RULES;
  private readonly api: TikTokApi;

  constructor(endpoints: AdapterEndpoints, { pollDelaysMs = DEFAULT_POLL_DELAYS_MS }: PollingOptions = {}) {
    // TikTok may rotate the refresh token; OAuth2App keeps whichever it answers with.
    const login = new OAuth2App(endpoints, {
      network: 'TikTok',
      clientIdField: 'client_key',
      url: `${endpoints.authBaseUrl}/v2/auth/authorize/`,
      tokenUrl: `${endpoints.apiBaseUrl}/v2/oauth/token/`,
      scopes: TIKTOK_SCOPES,
      scopeSeparator: ',',
    });
    super(login, withinBudget(pollDelaysMs, endpoints.processingWaitMs));
    this.api = new TikTokApi(endpoints);
  }

  /** One grant = one creator account. */
  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const fields = 'open_id,union_id,avatar_url,display_name,username';
    const user = obj(obj((await this.api.json(tokens.accessToken, `/v2/user/info/?fields=${fields}`)).data).user);
    const openId = needed(str(user.open_id), 'TikTok user info returned no open_id.');
    const username = str(user.username) ?? null;
    const name = str(user.display_name) ?? username ?? openId;
    const metadata = { username, unionId: str(user.union_id) ?? null };
    return [{ platformAccountId: openId, name, username, avatarUrl: str(user.avatar_url) ?? null, metadata }];
  }

  /** creator_info/query gives no count, but answers spam_risk_too_many_posts once the daily cap is reached. */
  async publishingUsage(account: AccountCredentials): Promise<NetworkCapUsage> {
    const answered = this.creatorInfo(account.accessToken).then(() => false);
    const spamRisk = (err: PlatformError) => err.details.networkCode === 'spam_risk_too_many_posts';
    const exhausted = await orIfRefused(answered, spamRisk, true);
    return { used: null, limit: null, exhausted };
  }

  private creatorInfo(token: string): Promise<Json> {
    return this.api.post(token, '/v2/post/publish/creator_info/query/', {});
  }

  async publish(req: PublishRequest): Promise<PublishResult> {
    const { state, save } = progress<TikTokState>(req);
    if (state.postId) return postResult(state.postId, req.account);
    const token = req.account.accessToken;
    if (!state.publishId) {
      const cannotTell = 'An earlier attempt may have published this post; TikTok cannot tell yet.';
      const found = await this.lookBeforeResending(req, state.initAttemptedAt, cannotTell);
      if (found) return found;
      const options = arr(obj((await this.creatorInfo(token)).data).privacy_level_options).flatMap((o) => str(o) || []);
      const init = this.initRequest(req.content, choosePrivacy(str(req.content.options.privacyLevel), options));
      await save({ initAttemptedAt: new Date().toISOString() });
      const reply = await this.api.post(token, init.path, init.body, { creates: true }).catch(async (err: unknown) => {
        // TikTok answered with its error envelope: nothing was created, a new attempt may init again.
        if (answeredWithError(err)) await save({ initAttemptedAt: undefined });
        throw err;
      });
      const missing = 'TikTok accepted the post but returned no publish_id.';
      await save({ publishId: needed(str(obj(reply.data).publish_id), missing, true) });
    }
    const stillBusy = 'TikTok is still processing the post (moderation); it is checked again later.';
    const check = () => this.settled(req.account, state.publishId!);
    const outcome = await pollOrThrow(this.pollDelaysMs, new StillProcessingError(stillBusy), check);
    if (outcome.status === 'failed') {
      // Certainly not published: forget the publish so a retry starts over.
      await req.saveState({});
      throw outcome.error;
    }
    await save({ postId: outcome.result.externalId });
    return outcome.result;
  }

  private initRequest(c: PublishContent, privacy: string): { path: string; body: Record<string, unknown> } {
    const o = c.options;
    const shared = { privacy_level: privacy, disable_comment: o.disableComment === true };
    if (c.contentType === 'image') {
      const title = str(o.title) ?? '';
      const info = { title, description: c.text, ...shared, auto_add_music: o.autoAddMusic !== false };
      const source = { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: c.imageUrls };
      const body = { post_info: info, source_info: source, post_mode: 'DIRECT_POST', media_type: 'PHOTO' };
      return { path: '/v2/post/publish/content/init/', body };
    }
    const [duet, stitch] = [o.disableDuet === true, o.disableStitch === true];
    const info = { title: c.text, ...shared, disable_duet: duet, disable_stitch: stitch };
    const body = { post_info: info, source_info: { source: 'PULL_FROM_URL', video_url: c.videoUrl } };
    return { path: '/v2/post/publish/video/init/', body };
  }

  /** One status/fetch (undefined while processing); a private post has no public id, only its publish_id. */
  private async settled(account: AccountCredentials, publishId: string): Promise<Settled | undefined> {
    const json = { publish_id: publishId };
    const reply = await this.api.call(account.accessToken, '/v2/post/publish/status/fetch/', { method: 'POST', json });
    const data = obj(obj(reply.json).data);
    const status = str(data.status);
    if (status === 'PUBLISH_COMPLETE' || status === 'SEND_TO_USER_INBOX')
      return { status: 'published', result: postResult(publicPostIds(reply.text)[0] ?? publishId, account) };
    if (status === 'FAILED') return { status: 'failed', error: failReasonError(str(data.fail_reason) ?? 'unknown') };
    return undefined;
  }

  async checkProcessing(req: PublishLookup): Promise<ProcessingCheck> {
    const state = req.publishState as TikTokState;
    if (state.postId) return { status: 'published', result: postResult(state.postId, req.account) };
    if (!state.publishId) return { status: 'ready' };
    return (await this.settled(req.account, state.publishId)) ?? { status: 'processing' };
  }

  async findPublished(req: PublishLookup): Promise<PublishResult | null | 'unknown'> {
    const state = req.publishState as TikTokState;
    if (state.postId) return postResult(state.postId, req.account);
    if (state.publishId) {
      const outcome = await pollUntil(this.pollDelaysMs, () => this.settled(req.account, state.publishId!));
      return outcome === undefined ? 'unknown' : outcome.status === 'failed' ? null : outcome.result;
    }
    if (!state.initAttemptedAt) return null;
    // The init answer was lost, so there is no publish_id: look among the creator's latest videos.
    const since = Date.parse(state.initAttemptedAt) / 1000 - 120;
    const videos = await listVideos(this.api, req.account.accessToken, since, 1);
    const text = req.content.text;
    const match = videos.find((v) => v.createTime >= since && (v.title === text || v.description === text));
    if (match) return { externalId: match.id, url: match.shareUrl ?? postResult(match.id, req.account).url };
    // Moderation can keep a new post invisible for a while: absence proves nothing.
    return 'unknown';
  }

  readonly getItemMetrics: PlatformAdapter['getItemMetrics'] = (...args) => itemMetrics(this.api, ...args);
  readonly getDailyMetrics: PlatformAdapter['getDailyMetrics'] = (...args) => dailyMetrics(this.api, ...args);
}

/** The poll delays that fit in `budgetMs` (the last one shortened); all of them without a budget. */
function withinBudget(delays: number[], budgetMs = Infinity): number[] {
  const out: number[] = [];
  let left = budgetMs;
  for (const d of delays) {
    if (left <= 0) break;
    out.push(Math.min(d, left));
    left -= d;
  }
  return out;
}

function answeredWithError(err: unknown): boolean {
  const code = err instanceof PlatformError && err.category !== 'unknown_outcome' ? err.details.networkCode : undefined;
  return typeof code === 'string' && !code.startsWith('http_');
}

/** PUBLIC_TO_EVERYONE unless asked otherwise; unaudited apps only get SELF_ONLY. */
function choosePrivacy(requested: string | undefined, options: string[]): string {
  if (requested && !options.includes(requested)) {
    const message = `Privacy level ${requested} is not available for this creator (available: ${options.join(', ')}).`;
    throw new PlatformError(message, 'invalid_content', false, { networkCode: 'privacy_level_option_mismatch' });
  }
  return requested || (options.includes('PUBLIC_TO_EVERYONE') ? 'PUBLIC_TO_EVERYONE' : (options[0] ?? 'SELF_ONLY'));
}

/** A public post (a numeric id) has a URL under the creator's username; a private one only its publish_id. */
function postResult(postId: string, account: AccountCredentials): PublishResult {
  const username = str(account.metadata.username);
  const isPublic = /^\d+$/.test(postId);
  const url = isPublic && username ? `https://www.tiktok.com/@${username}/video/${postId}` : null;
  return { externalId: postId, url };
}
