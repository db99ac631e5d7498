import { AppConfig } from '@/config/config';
import { SandboxMediaFetch } from '../kit/sandbox/sandbox-media';
import { Injectable } from '@nestjs/common';
import {
  enforceMagicWords,
  parseMagicWords,
  MagicErrors,
  SANDBOX_RATE_LIMIT_SECONDS,
} from '../kit/sandbox/magic-words';
import { qs, pickFields, Q } from '../kit/sandbox/sandbox-request';
import { TIKTOK_RULES } from './tiktok.adapter';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { SandboxHttpError, withRetryAfter } from '../kit/sandbox/sandbox-http';
import { type SandboxAuthSpec } from '../kit/sandbox/sandbox-auth';
import { oauth2Login, simulator } from '../kit/sandbox/sandbox-login';
import type { SandboxGrant } from '../kit/sandbox/sandbox-oauth';
import { SandboxStore, SimulatorState } from '../kit/sandbox/sandbox-store';
import { dailyAccountMetrics, itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { route } from '../kit/sandbox/sandbox-routes';

/**
 * Simulated TikTok: Login Kit OAuth v2, user info, and the Content Posting API (Direct Post,
 * PULL_FROM_URL). A publish reports PROCESSING_DOWNLOAD on its first status fetch and its final
 * status from the second on (#sandbox-review: PROCESSING_DOWNLOAD until SANDBOX_REVIEW_MS passed).
 */

const logId = (): string =>
  `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomBytes(9).toString('hex').toUpperCase()}`;

/** TikTok's envelope with an error: `{ data: {}, error: { code, message, log_id } }`. */
export function ttFail(status: number, code: string, message: string): SandboxHttpError {
  return new SandboxHttpError(status, { data: {}, error: { code, message, log_id: logId() } });
}
const invalidParams = (message: string) => ttFail(400, 'invalid_params', message);

export function ttOk(data: unknown): { data: unknown; error: { code: string; message: string; log_id: string } } {
  return { data, error: { code: 'ok', message: '', log_id: logId() } };
}

/** The same envelope as raw JSON text, for bodies carrying int64 ids as bare numbers. */
export function ttOkText(dataJson: string): string {
  return `{"data":${dataJson},"error":{"code":"ok","message":"","log_id":"${logId()}"}}`;
}

/** The creator calling, as creatorOf makes it from the token and its grant. */
type TtCreator = ReturnType<typeof creatorOf>;

export interface TtPublish {
  publishId: string;
  openId: string;
  kind: 'video' | 'photo';
  title: string;
  description: string;
  privacy: string;
  failReason: string | null;
  polls: number;
  /** #sandbox-review: still processing (moderation) until this time (ms since epoch). */
  readyAt?: number | null;
  videoId: string | null;
  mediaBytes: number;
}

export interface TtVideo {
  id: string;
  openId: string;
  title: string;
  description: string;
  createTime: number;
  shareUrl: string;
}

export const TT_PRIVACY_OPTIONS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];
/** Direct Post init requests allowed per access token per minute (as documented). */
export const TT_INITS_PER_MINUTE = 6;

/** The creator behind a bearer token; every token problem is TikTok's access_token_invalid. */
export const TT_CREATOR = (scope?: string): SandboxAuthSpec<TtCreator> => ({
  network: 'tiktok',
  fail: () => ttFail(401, 'access_token_invalid', 'The access token is invalid or not found in the request.'),
  caller: (info, { token }) => {
    if (scope && !info.grant.scopes.includes(scope))
      throw ttFail(
        401,
        'scope_not_authorized',
        `The user did not authorize the scope required for completing this request (${scope}).`,
      );
    return creatorOf(info.grant, token);
  },
});

function creatorOf({ userId, scopes }: SandboxGrant, token: string) {
  const [username, displayName] = [`sandbox.creator${userId.slice(-6)}`, `Sandbox Creator ${userId.slice(-4)}`];
  return { openId: openIdOf(userId), userId, username, displayName, scopes, token };
}

const ACCESS_TTL = 86_400;
const REFRESH_TTL = 365 * 86_400;

/** TikTok Login Kit (OAuth v2, client_key); refresh tokens rotate: every refresh answers with a new one. */
export const TIKTOK_LOGIN = oauth2Login({
  network: 'tiktok',
  appLabel: 'TikTok app',
  clientIdParam: 'client_key',
  authorize: 'v2/auth/authorize',
  token: 'v2/oauth/token',
  errors: () => {
    const invalidGrant = 'Authorization code or refresh token is expired or invalid.';
    return {
      invalidClient: [400, 'invalid_client', 'Client key or secret is incorrect.'],
      unsupportedGrant: [400, 'invalid_request', 'The request parameters are malformed.'],
      invalidCode: [400, 'invalid_grant', invalidGrant],
      invalidRefresh: [400, 'invalid_grant', invalidGrant],
      extra: { log_id: `${Date.now()}SANDBOX` },
    };
  },
  grants: {
    prefix: 'act.',
    accessTtl: ACCESS_TTL,
    refreshTtl: REFRESH_TTL,
    onRefresh: 'rotate',
    scopeJoin: ',',
    extra: (grant) => ({ open_id: openIdOf(grant.userId), refresh_expires_in: REFRESH_TTL, token_type: 'Bearer' }),
  },
});

/** TikTok's answers to the magic words (init errors of the Content Posting API). */
export const TT_MAGIC: MagicErrors = {
  invalid_content: (m) => ttFail(403, 'spam_risk_text', m),
  auth_expired: (m) =>
    ttFail(401, 'access_token_invalid', `The access token is invalid or not found in the request. ${m}`),
  media_rejected: (m) => ttFail(403, 'url_ownership_unverified', m),
  rate_limited: (m) => withRetryAfter(ttFail(429, 'rate_limit_exceeded', m), SANDBOX_RATE_LIMIT_SECONDS),
  transient: (m) => ttFail(500, 'internal_error', m),
};

@Injectable()
export class TikTokSandbox extends SimulatorState {
  protected readonly network = 'tiktok';
  readonly publishes = this.records<TtPublish>('publish', (p) => p.publishId);
  /** By open_id. */
  readonly videos = this.records<TtVideo>('video', (v) => v.id);

  constructor(
    store: SandboxStore,
    config: AppConfig,
    private readonly media: SandboxMediaFetch,
  ) {
    super(store, config);
  }

  /** The creator's daily post cap (tiktokNetwork's): TikTok's spam_risk_too_many_posts past it. */
  async assertUnderCap(c: TtCreator): Promise<void> {
    const times = (await this.videos.of(c.openId)).map((v) => v.createTime * 1000);
    if (this.caps.reached('tiktok', times))
      throw ttFail(403, 'spam_risk_too_many_posts', 'The daily post cap from the API is reached for the current user.');
  }

  async init(c: TtCreator, kind: 'video' | 'photo', info: Q, text: string, urls: string[]): Promise<unknown> {
    await this.countInit(c.token);
    await this.assertUnderCap(c);
    const privacy = qs(info.privacy_level);
    if (!TT_PRIVACY_OPTIONS.includes(privacy))
      throw ttFail(
        400,
        'privacy_level_option_mismatch',
        `privacy_level ${privacy || '(none)'} is not one of the creator's options.`,
      );
    if (text.length > TIKTOK_RULES.maxText)
      throw invalidParams(
        `The ${kind === 'video' ? 'title' : 'description'} exceeds ${TIKTOK_RULES.maxText} characters.`,
      );
    await enforceMagicWords(
      this.store,
      { platform: 'tiktok', accountId: c.openId, text, contentKey: urls.join('|') },
      TT_MAGIC,
    );
    const p: TtPublish = {
      publishId: this.newPublishId(kind),
      openId: c.openId,
      kind,
      title: kind === 'video' ? text : qs(info.title),
      description: text,
      privacy,
      failReason: await this.pullProblem(kind, urls),
      polls: 0,
      readyAt: parseMagicWords(text).review ? Date.now() + this.config.sandbox.reviewMs : null,
      videoId: null,
      mediaBytes: 10_000,
    };
    await this.publishes.put(p);
    return ttOk({ publish_id: p.publishId });
  }

  /** 6 init calls per minute per token. */
  async countInit(token: string): Promise<void> {
    const minute = Math.floor(Date.now() / 60_000);
    const n = await this.store.incr(
      ['tiktok', 'init-rate', createHash('sha256').update(token).digest('hex').slice(0, 24), String(minute)],
      70,
    );
    if (n > TT_INITS_PER_MINUTE)
      throw ttFail(
        429,
        'rate_limit_exceeded',
        `API rate limit was exceeded, only ${TT_INITS_PER_MINUTE} requests are allowed per minute.`,
      );
  }

  /** TikTok pulls the media from the URL; a failed download shows up later as the publish's fail_reason. */
  async pullProblem(kind: 'video' | 'photo', urls: string[]): Promise<string | null> {
    for (const url of urls) {
      if (await this.media.problem(url, kind === 'video' ? 'video' : 'image'))
        return kind === 'video' ? 'video_pull_failed' : 'photo_pull_failed';
      // Photo posts take JPEG and WebP only.
      if (kind === 'photo' && !/\.(jpe?g|webp)(\?|$)/i.test(url)) return 'file_format_check_failed';
    }
    return null;
  }

  newPublishId(kind: 'video' | 'photo'): string {
    return `${kind === 'video' ? 'v' : 'p'}_pub_url~v2.${randomInt(1e9, 9e9)}${randomInt(1e8, 9e8)}`;
  }

  newVideoId(): string {
    return `7${Date.now()}${randomInt(10000, 99999)}`.slice(0, 19);
  }
}

/** A stable UUID-shaped open_id per sandbox user. */
export function openIdOf(userId: string): string {
  const h = createHash('sha256').update(`tiktok:${userId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const TT_VIDEO_LIST = TT_CREATOR('video.list');
const TT_PUBLISH = TT_CREATOR('video.publish');

const TIKTOK_ROUTES = [
  route('GET v2/user/info', TT_CREATOR(), async ({ q, caller: c }, tt: TikTokSandbox) => {
    const today = new Date().toISOString().slice(0, 10);
    const all: Record<string, unknown> = {
      open_id: c.openId,
      union_id: `u-${c.openId}`,
      avatar_url: 'https://p16-sign.tiktokcdn-us.com/sandbox-avatar.jpeg',
      display_name: c.displayName,
      username: c.username,
      bio_description: 'A simulated TikTok creator.',
      is_verified: false,
      follower_count: dailyAccountMetrics(c.openId, today).followers,
      following_count: 42,
      likes_count: 1000,
      video_count: (await tt.videos.of(c.openId, 0, 1000)).length,
    };
    const user = pickFields(all, q.fields);
    if (!user) throw invalidParams('The fields parameter is missing or has no valid field.');
    return ttOk({ user });
  }),
  route('POST v2/post/publish/creator_info/query', TT_PUBLISH, async ({ caller: c }, tt: TikTokSandbox) => {
    await tt.assertUnderCap(c);
    return ttOk({
      creator_avatar_url: 'https://p16-sign.tiktokcdn-us.com/sandbox-avatar.jpeg',
      creator_username: c.username,
      creator_nickname: c.displayName,
      privacy_level_options: TT_PRIVACY_OPTIONS,
      comment_disabled: false,
      duet_disabled: false,
      stitch_disabled: false,
      max_video_post_duration_sec: 600,
    });
  }),
  route('POST v2/post/publish/video/init', TT_PUBLISH, ({ body, caller: c }, tt: TikTokSandbox) => {
    const info = (body.post_info ?? {}) as Q;
    const source = (body.source_info ?? {}) as Q;
    if (qs(source.source) !== 'PULL_FROM_URL') throw invalidParams('The sandbox supports source PULL_FROM_URL only.');
    if (!qs(source.video_url)) throw invalidParams('source_info.video_url is required.');
    return tt.init(c, 'video', info, qs(info.title), [qs(source.video_url)]);
  }),
  route('POST v2/post/publish/content/init', TT_PUBLISH, ({ body, caller: c }, tt: TikTokSandbox) => {
    const info = (body.post_info ?? {}) as Q;
    const source = (body.source_info ?? {}) as Q;
    const images = Array.isArray(source.photo_images) ? source.photo_images.map(qs) : [];
    if (qs(body.media_type) !== 'PHOTO' || qs(body.post_mode) !== 'DIRECT_POST')
      throw invalidParams('media_type must be PHOTO and post_mode DIRECT_POST.');
    const max = TIKTOK_RULES.images.max;
    if (qs(source.source) !== 'PULL_FROM_URL' || images.length === 0 || images.length > max)
      throw invalidParams(`source_info.photo_images must list 1 to ${max} URLs pulled from URL.`);
    return tt.init(c, 'photo', info, qs(info.description), images);
  }),
  route(
    { at: 'POST v2/post/publish/status/fetch', raw: true },
    TT_CREATOR(),
    async ({ body, caller: c, res }, tt: TikTokSandbox) => {
      const p = await tt.publishes.get(qs(body.publish_id));
      if (!p || p.openId !== c.openId)
        throw ttFail(400, 'invalid_publish_id', 'The publish_id does not exist or does not belong to this user.');
      p.polls += 1;
      /** The data, or its JSON text where it carries bare int64s. */
      const answer = async (data: object | string): Promise<void> => {
        await tt.publishes.put(p);
        res.type('application/json').send(ttOkText(typeof data === 'string' ? data : JSON.stringify(data)));
      };
      if (p.polls < 2 || (p.readyAt && Date.now() < p.readyAt))
        return answer({ status: 'PROCESSING_DOWNLOAD', downloaded_bytes: Math.floor(p.mediaBytes / 2) });
      const failed = {
        status: 'FAILED',
        fail_reason: p.failReason,
        publicaly_available_post_id: [],
        uploaded_bytes: 0,
      };
      if (p.failReason) return answer(failed);
      if (!p.videoId && p.privacy !== 'SELF_ONLY') {
        const [id, createTime] = [tt.newVideoId(), Math.floor(Date.now() / 1000)];
        const { title, description } = p;
        const shareUrl = `https://www.tiktok.com/@${c.username}/video/${id}`;
        await tt.videos.add(c.openId, { id, openId: c.openId, title, description, createTime, shareUrl });
        p.videoId = id;
      }
      // Post ids are int64: sent as bare numbers, like TikTok does.
      const ids = p.videoId ?? '';
      return answer(
        `{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[${ids}],"downloaded_bytes":${p.mediaBytes}}`,
      );
    },
  ),
  route('POST v2/video/list', TT_VIDEO_LIST, async ({ q, body, caller: c }, tt: TikTokSandbox) => {
    const start = Number(body.cursor) || 0;
    const count = Math.min(20, Math.max(1, Number(body.max_count) || 10));
    const page = await tt.videos.of(c.openId, start, count + 1);
    const videos = page.slice(0, count);
    const hasMore = page.length > count;
    return ttOk({
      videos: videos.map((v) => videoFields(v, q.fields)),
      cursor: start + videos.length,
      has_more: hasMore,
    });
  }),
  route('POST v2/video/query', TT_VIDEO_LIST, async ({ q, body, caller: c }, tt: TikTokSandbox) => {
    const filters = body.filters as Record<string, unknown> | undefined;
    const ids = Array.isArray(filters?.video_ids) ? filters.video_ids.map(qs).slice(0, 20) : [];
    const videos = (await tt.videos.many(ids)).filter((v) => v.openId === c.openId);
    return ttOk({ videos: videos.map((v) => videoFields(v, q.fields)), cursor: 0, has_more: false });
  }),
];

function videoFields(v: TtVideo, fields: unknown): Record<string, unknown> {
  const m = itemMetrics(v.id);
  const all: Record<string, unknown> = {
    id: v.id,
    title: v.title,
    video_description: v.description,
    create_time: v.createTime,
    share_url: v.shareUrl,
    view_count: m.views,
    like_count: m.likes,
    comment_count: m.comments,
    share_count: m.shares,
    duration: 15,
  };
  return pickFields(all, fields) ?? { id: v.id };
}

export const TIKTOK_SIMULATOR = simulator(TIKTOK_LOGIN, TikTokSandbox, TIKTOK_ROUTES);
