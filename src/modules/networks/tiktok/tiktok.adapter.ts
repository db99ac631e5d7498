import { checkContent, ContentRules } from '../kit/content-rules';
import type {
  AccountCredentials,
  AdapterEndpoints,
  DailyAccountMetrics,
  GrantedAccount,
  ItemMetrics,
  OAuthTokens,
  PlatformAdapter,
  ProcessingCheck,
  PublishContent,
  PublishRequest,
  PublishResult,
  ValidationIssue,
} from '../kit/adapter';
import { commentsUnavailable, PlatformError, StillProcessingError } from '../kit/adapter';
import type { NetworkCapUsage } from '../kit/caps';
import { arr, obj, sleep, str } from '../kit/http';
import { OAuth2Adapter, OAuth2App } from '../kit/oauth';
import { failReasonError, publicPostIds, TikTokClient } from './tiktok-api';
import { dailyMetrics, itemMetrics, listVideos } from './tiktok-metrics';

/**
 * TikTok Content Posting API (Direct Post): creator_info → video/init or content/init with
 * PULL_FROM_URL → poll status/fetch until PUBLISH_COMPLETE or FAILED.
 * https://developers.tiktok.com/doc/content-posting-api-reference-direct-post
 */

export const TIKTOK_SCOPES = ['user.info.basic', 'user.info.profile', 'user.info.stats', 'video.publish', 'video.list'];
export const TIKTOK_RULES: ContentRules = {
  label: 'TikTok',
  maxText: 2200,
  textLength: (text) => text.length,
  mediaField: 'contentType',
  images: { max: 35 },
};

export interface TikTokAdapterOptions {
  /** Waits between status polls of a publish. */
  pollDelaysMs?: number[];
}

const DEFAULT_POLL_DELAYS_MS = [2000, 3000, 5000, 5000, 10000, 10000, 15000, 15000];

type PollOutcome = { kind: 'done'; postId: string } | { kind: 'failed'; error: PlatformError } | { kind: 'pending' };

interface TikTokState {
  /** Set just before video/init or content/init: from here on a publish may exist. */
  initAttemptedAt?: string;
  publishId?: string;
  postId?: string;
}

export class TikTokAdapter extends OAuth2Adapter implements PlatformAdapter {
  readonly platform = 'tiktok' as const;
  readonly supportsComments = false;
  private readonly client: TikTokClient;
  protected readonly oauth: OAuth2App;
  // TikTok may rotate the refresh token; parseTokenResponse keeps whichever it answers with.
  protected readonly noRefreshToken = 'TikTok granted no refresh token; reconnect the account.';
  /** Waits between status polls within one attempt, cut to the endpoints' processingWaitMs. */
  private readonly pollDelaysMs: number[];

  constructor(
    private readonly endpoints: AdapterEndpoints,
    options: TikTokAdapterOptions = {},
  ) {
    super();
    this.client = new TikTokClient(endpoints);
    this.oauth = new OAuth2App('TikTok', `${endpoints.apiBaseUrl}/v2/oauth/token/`, endpoints, {
      url: `${endpoints.authBaseUrl}/v2/auth/authorize/`,
      scopes: TIKTOK_SCOPES,
      scopeSeparator: ',',
      clientIdField: 'client_key',
    });
    this.pollDelaysMs = withinBudget(options.pollDelaysMs ?? DEFAULT_POLL_DELAYS_MS, endpoints.processingWaitMs);
  }

  /** One grant = one creator account. */
  async listAccounts(tokens: OAuthTokens): Promise<GrantedAccount[]> {
    const reply = await this.client.api(
      tokens.accessToken,
      'GET',
      '/v2/user/info/?fields=open_id,union_id,avatar_url,display_name,username',
    );
    const user = obj(obj(obj(reply.json).data).user);
    const openId = str(user.open_id);
    if (!openId) throw new PlatformError('TikTok user info returned no open_id.', 'network_error', true);
    const username = str(user.username) ?? null;
    return [
      {
        platformAccountId: openId,
        name: str(user.display_name) ?? username ?? openId,
        username,
        avatarUrl: str(user.avatar_url) ?? null,
        metadata: { username, unionId: str(user.union_id) ?? null },
      },
    ];
  }

  validate(content: PublishContent): ValidationIssue[] {
    return checkContent(TIKTOK_RULES, content);
  }

  /**
   * creator_info/query: TikTok gives no count, but answers spam_risk_too_many_posts once the
   * creator reached the daily post cap of the API.
   */
  async publishingUsage(account: AccountCredentials): Promise<NetworkCapUsage> {
    try {
      await this.client.api(account.accessToken, 'POST', '/v2/post/publish/creator_info/query/', { json: {} });
      return { used: null, limit: null, exhausted: false };
    } catch (err) {
      if (err instanceof PlatformError && err.details.networkCode === 'spam_risk_too_many_posts')
        return { used: null, limit: null, exhausted: true };
      throw err;
    }
  }

  async publish(req: PublishRequest): Promise<PublishResult> {
    const state: TikTokState = { ...(req.publishState as TikTokState) };
    const save = () => req.saveState({ ...state });
    const username = str(req.account.metadata.username) ?? null;
    if (state.postId) return postResult(state.postId, username);
    const token = req.account.accessToken;
    if (!state.publishId) {
      if (state.initAttemptedAt) {
        const found = await this.findPublished(req);
        if (found === 'unknown')
          throw new PlatformError(
            'An earlier attempt may have published this post; TikTok cannot tell yet.',
            'unknown_outcome',
            false,
          );
        if (found) return found;
      }
      const creator = obj(
        obj((await this.client.api(token, 'POST', '/v2/post/publish/creator_info/query/', { json: {} })).json).data,
      );
      const privacy = choosePrivacy(str(req.content.options.privacyLevel), arr(creator.privacy_level_options).map(str));
      const init = this.initRequest(req.content, privacy);
      state.initAttemptedAt = new Date().toISOString();
      await save();
      const reply = await this.client
        .api(token, 'POST', init.path, { json: init.body, creates: true })
        .catch(async (err: unknown) => {
          // TikTok answered with its error envelope: nothing was created, a new attempt may init again.
          if (answeredWithError(err)) {
            delete state.initAttemptedAt;
            await save();
          }
          throw err;
        });
      const publishId = str(obj(obj(reply.json).data).publish_id);
      if (!publishId)
        throw new PlatformError('TikTok accepted the post but returned no publish_id.', 'unknown_outcome', false);
      state.publishId = publishId;
      await save();
    }
    const outcome = await this.pollStatus(token, state.publishId);
    if (outcome.kind === 'failed') {
      // Certainly not published: forget the publish so a retry starts over.
      await req.saveState({});
      throw outcome.error;
    }
    if (outcome.kind === 'pending')
      throw new StillProcessingError('TikTok is still processing the post (moderation); it is checked again later.');
    state.postId = outcome.postId;
    await save();
    return postResult(outcome.postId, username);
  }

  private initRequest(c: PublishContent, privacy: string): { path: string; body: Record<string, unknown> } {
    const o = c.options;
    if (c.contentType === 'image') {
      return {
        path: '/v2/post/publish/content/init/',
        body: {
          post_info: {
            title: str(o.title) ?? '',
            description: c.text,
            privacy_level: privacy,
            disable_comment: o.disableComment === true,
            auto_add_music: o.autoAddMusic !== false,
          },
          source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: c.imageUrls },
          post_mode: 'DIRECT_POST',
          media_type: 'PHOTO',
        },
      };
    }
    return {
      path: '/v2/post/publish/video/init/',
      body: {
        post_info: {
          title: c.text,
          privacy_level: privacy,
          disable_duet: o.disableDuet === true,
          disable_comment: o.disableComment === true,
          disable_stitch: o.disableStitch === true,
        },
        source_info: { source: 'PULL_FROM_URL', video_url: c.videoUrl },
      },
    };
  }

  /** Polls status/fetch until a final status; a complete post is known by its public id (or its publish_id when private). */
  private async pollStatus(token: string, publishId: string): Promise<PollOutcome> {
    for (const delay of [0, ...this.pollDelaysMs]) {
      if (delay) await sleep(delay);
      const outcome = await this.fetchStatus(token, publishId);
      if (outcome.kind !== 'pending') return outcome;
    }
    return { kind: 'pending' };
  }

  private async fetchStatus(token: string, publishId: string): Promise<PollOutcome> {
    const reply = await this.client.api(token, 'POST', '/v2/post/publish/status/fetch/', {
      json: { publish_id: publishId },
    });
    const data = obj(obj(reply.json).data);
    const status = str(data.status);
    if (status === 'PUBLISH_COMPLETE' || status === 'SEND_TO_USER_INBOX')
      return { kind: 'done', postId: publicPostIds(reply.text)[0] ?? publishId };
    if (status === 'FAILED') return { kind: 'failed', error: failReasonError(str(data.fail_reason) ?? 'unknown') };
    return { kind: 'pending' };
  }

  /** One status/fetch of the saved publish_id. */
  async checkProcessing(req: Omit<PublishRequest, 'saveState'>): Promise<ProcessingCheck> {
    const state = req.publishState as TikTokState;
    const username = str(req.account.metadata.username) ?? null;
    if (state.postId) return { status: 'published', result: postResult(state.postId, username) };
    if (!state.publishId) return { status: 'ready' };
    const outcome = await this.fetchStatus(req.account.accessToken, state.publishId);
    if (outcome.kind === 'done') return { status: 'published', result: postResult(outcome.postId, username) };
    if (outcome.kind === 'failed') return { status: 'failed', error: outcome.error };
    return { status: 'processing' };
  }

  async findPublished(req: Omit<PublishRequest, 'saveState'>): Promise<PublishResult | null | 'unknown'> {
    const state = req.publishState as TikTokState;
    const username = str(req.account.metadata.username) ?? null;
    if (state.postId) return postResult(state.postId, username);
    const token = req.account.accessToken;
    if (state.publishId) {
      const outcome = await this.pollStatus(token, state.publishId);
      if (outcome.kind === 'done') return postResult(outcome.postId, username);
      return outcome.kind === 'failed' ? null : 'unknown';
    }
    if (!state.initAttemptedAt) return null;
    // The init answer was lost, so there is no publish_id: look among the creator's latest videos.
    const since = Date.parse(state.initAttemptedAt) / 1000 - 120;
    const videos = await listVideos(this.client, token, since, 1);
    const match = videos.find(
      (v) => v.createTime >= since && (v.title === req.content.text || v.description === req.content.text),
    );
    if (match) return { externalId: match.id, url: match.shareUrl ?? postResult(match.id, username).url };
    // Moderation can keep a new post invisible for a while: absence proves nothing.
    return 'unknown';
  }

  getItemMetrics(account: AccountCredentials, externalId: string): Promise<ItemMetrics> {
    return itemMetrics(this.client, account, externalId);
  }

  getDailyMetrics(account: AccountCredentials, from: string, to: string): Promise<DailyAccountMetrics[]> {
    return dailyMetrics(this.client, account, from, to);
  }

  listComments(): Promise<never> {
    return commentsUnavailable('TikTok');
  }
}

/** The poll delays that fit in `budgetMs` (the last one shortened); all of them without a budget. */
function withinBudget(delays: number[], budgetMs: number | undefined): number[] {
  if (budgetMs === undefined) return delays;
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
  const code = err instanceof PlatformError ? err.details.networkCode : undefined;
  return (
    err instanceof PlatformError &&
    err.category !== 'unknown_outcome' &&
    typeof code === 'string' &&
    !code.startsWith('http_')
  );
}

/** PUBLIC_TO_EVERYONE unless asked otherwise; unaudited apps only get SELF_ONLY. */
function choosePrivacy(requested: string | undefined, available: (string | undefined)[]): string {
  const options = available.filter((o): o is string => !!o);
  if (requested) {
    if (!options.includes(requested)) {
      throw new PlatformError(
        `Privacy level ${requested} is not available for this creator (available: ${options.join(', ')}).`,
        'invalid_content',
        false,
        {
          networkCode: 'privacy_level_option_mismatch',
        },
      );
    }
    return requested;
  }
  return options.includes('PUBLIC_TO_EVERYONE') ? 'PUBLIC_TO_EVERYONE' : (options[0] ?? 'SELF_ONLY');
}

function postResult(postId: string, username: string | null): PublishResult {
  const isPublic = /^\d+$/.test(postId);
  return {
    externalId: postId,
    url: isPublic && username ? `https://www.tiktok.com/@${username}/video/${postId}` : null,
  };
}
