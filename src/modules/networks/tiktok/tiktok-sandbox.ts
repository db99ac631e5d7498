import { Injectable } from '@nestjs/common';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { dayOf } from '../kit/days';
import type { MagicErrors } from '../kit/sandbox/magic-words';
import { enforceMagicWords, parseMagicWords, SANDBOX_RATE_LIMIT_SECONDS } from '../kit/sandbox/magic-words';
import type { SandboxAuthSpec } from '../kit/sandbox/sandbox-auth';
import { SandboxHttpError, withRetryAfter } from '../kit/sandbox/sandbox-http';
import { oauth2Login, simulator } from '../kit/sandbox/sandbox-login';
import { dailyAccountMetrics, itemMetrics } from '../kit/sandbox/sandbox-metrics';
import type { SandboxGrant } from '../kit/sandbox/sandbox-oauth';
import { pageSize, pickFields, Q, qs } from '../kit/sandbox/sandbox-request';
import { routesOf } from '../kit/sandbox/sandbox-routes';
import { SimulatorState } from '../kit/sandbox/sandbox-state';
import { TIKTOK_RULES } from './tiktok.adapter';

const logId = (): string =>
  `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomBytes(9).toString('hex').toUpperCase()}`;

export function ttFail(status: number, code: string, message: string): SandboxHttpError {
  return new SandboxHttpError(status, { data: {}, error: { code, message, log_id: logId() } });
}
const invalidParams = (message: string) => ttFail(400, 'invalid_params', message);

/** TikTok's envelope of a success, as JSON text (bodies carrying int64 ids as bare numbers need the text). */
const okText = (dataJson: string) => `{"data":${dataJson},"error":{"code":"ok","message":"","log_id":"${logId()}"}}`;
export const ttOk = (data: unknown) => ({ data, error: { code: 'ok', message: '', log_id: logId() } });

type TtCreator = ReturnType<typeof creatorOf>;

export interface TtPublish {
  publishId: string;
  openId: string;
  title: string;
  description: string;
  privacy: string;
  failReason: string | null;
  polls: number;
  /** #sandbox-review: still processing (moderation) until this time (ms since epoch). */
  readyAt: number | null;
  videoId: string | null;
}

type TtVideo = ReturnType<typeof newVideo>;

/** What the simulator says it downloaded of every publish's media. */
const MEDIA_BYTES = 10_000;
const AVATAR = 'https://p16-sign.tiktokcdn-us.com/sandbox-avatar.jpeg';
export const TT_PRIVACY_OPTIONS = ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'FOLLOWER_OF_CREATOR', 'SELF_ONLY'];
/** Direct Post init requests allowed per access token per minute (as documented). */
export const TT_INITS_PER_MINUTE = 6;
const INITS_LIMITED = `API rate limit was exceeded, only ${TT_INITS_PER_MINUTE} requests are allowed per minute.`;

const INVALID_TOKEN = 'The access token is invalid or not found in the request.';
const unauthorized = (scope: string) =>
  `The user did not authorize the scope required for completing this request (${scope}).`;

/** The creator behind a bearer token; every token problem is TikTok's access_token_invalid. */
export const TT_CREATOR = (scope?: string): SandboxAuthSpec<TtCreator> => ({
  network: 'tiktok',
  fail: () => ttFail(401, 'access_token_invalid', INVALID_TOKEN),
  caller: (info, { token }) => {
    if (scope && !info.grant.scopes.includes(scope)) throw ttFail(401, 'scope_not_authorized', unauthorized(scope));
    return creatorOf(info.grant, token);
  },
});

function creatorOf({ userId }: SandboxGrant, token: string) {
  const [username, displayName] = [`sandbox.creator${userId.slice(-6)}`, `Sandbox Creator ${userId.slice(-4)}`];
  return { openId: openIdOf(userId), username, displayName, token };
}

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
    accessTtl: 86_400,
    refreshTtl: REFRESH_TTL,
    onRefresh: 'rotate',
    scopeJoin: ',',
    extra: (grant) => ({ open_id: openIdOf(grant.userId), refresh_expires_in: REFRESH_TTL, token_type: 'Bearer' }),
  },
});

/** TikTok's answers to the magic words (init errors of the Content Posting API). */
export const TT_MAGIC: MagicErrors = {
  invalid_content: (m) => ttFail(403, 'spam_risk_text', m),
  auth_expired: (m) => ttFail(401, 'access_token_invalid', `${INVALID_TOKEN} ${m}`),
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

  /** The creator's daily post cap (tiktokNetwork's): TikTok's spam_risk_too_many_posts past it. */
  async assertUnderCap(c: TtCreator): Promise<void> {
    const times = (await this.videos.of(c.openId)).map((v) => v.createTime * 1000);
    if (this.caps.reached('tiktok', times))
      throw ttFail(403, 'spam_risk_too_many_posts', 'The daily post cap from the API is reached for the current user.');
  }

  /** A Direct Post init (6 per token per minute): the publish it starts, checked like TikTok checks it. */
  async init(c: TtCreator, kind: 'video' | 'photo', info: Q, text: string, urls: string[]): Promise<unknown> {
    const minute = Math.floor(Date.now() / 60_000);
    const token = createHash('sha256').update(c.token).digest('hex').slice(0, 24);
    if ((await this.store.incr(['tiktok', 'init-rate', token, String(minute)], 70)) > TT_INITS_PER_MINUTE)
      throw ttFail(429, 'rate_limit_exceeded', INITS_LIMITED);
    await this.assertUnderCap(c);
    const privacy = qs(info.privacy_level);
    const mismatch = `privacy_level ${privacy || '(none)'} is not one of the creator's options.`;
    if (!TT_PRIVACY_OPTIONS.includes(privacy)) throw ttFail(400, 'privacy_level_option_mismatch', mismatch);
    const field = kind === 'video' ? 'title' : 'description';
    if (text.length > TIKTOK_RULES.maxText)
      throw invalidParams(`The ${field} exceeds ${TIKTOK_RULES.maxText} characters.`);
    const attempt = { platform: 'tiktok', accountId: c.openId, text, contentKey: urls.join('|') };
    await enforceMagicWords(this.store, attempt, TT_MAGIC);
    const p: TtPublish = {
      publishId: `${kind === 'video' ? 'v' : 'p'}_pub_url~v2.${randomInt(1e9, 9e9)}${randomInt(1e8, 9e8)}`,
      openId: c.openId,
      title: kind === 'video' ? text : qs(info.title),
      description: text,
      privacy,
      failReason: await this.pullProblem(kind, urls),
      polls: 0,
      readyAt: parseMagicWords(text).review ? Date.now() + this.config.sandbox.reviewMs : null,
      videoId: null,
    };
    await this.publishes.put(p);
    return ttOk({ publish_id: p.publishId });
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
}

/** A stable UUID-shaped open_id per sandbox user. */
export function openIdOf(userId: string): string {
  const h = createHash('sha256').update(`tiktok:${userId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const [TT_VIDEO_LIST, TT_PUBLISH] = [TT_CREATOR('video.list'), TT_CREATOR('video.publish')];
const route = routesOf<TikTokSandbox>();

const TIKTOK_ROUTES = [
  route('GET v2/user/info', TT_CREATOR(), async ({ q, caller: c }, tt) => {
    const all = {
      open_id: c.openId,
      union_id: `u-${c.openId}`,
      avatar_url: AVATAR,
      display_name: c.displayName,
      username: c.username,
      bio_description: 'A simulated TikTok creator.',
      is_verified: false,
      follower_count: dailyAccountMetrics(c.openId, dayOf(Date.now())).followers,
      following_count: 42,
      likes_count: 1000,
      video_count: (await tt.videos.of(c.openId, 0, 1000)).length,
    };
    const user = pickFields(all, q.fields);
    if (!user) throw invalidParams('The fields parameter is missing or has no valid field.');
    return ttOk({ user });
  }),
  route('POST v2/post/publish/creator_info/query', TT_PUBLISH, async ({ caller: c }, tt) => {
    await tt.assertUnderCap(c);
    return ttOk({
      creator_avatar_url: AVATAR,
      creator_username: c.username,
      creator_nickname: c.displayName,
      privacy_level_options: TT_PRIVACY_OPTIONS,
      comment_disabled: false,
      duet_disabled: false,
      stitch_disabled: false,
      max_video_post_duration_sec: 600,
    });
  }),
  route('POST v2/post/publish/video/init', TT_PUBLISH, ({ body, caller: c }, tt) => {
    const [info, source] = [(body.post_info ?? {}) as Q, (body.source_info ?? {}) as Q];
    if (qs(source.source) !== 'PULL_FROM_URL') throw invalidParams('The sandbox supports source PULL_FROM_URL only.');
    if (!qs(source.video_url)) throw invalidParams('source_info.video_url is required.');
    return tt.init(c, 'video', info, qs(info.title), [qs(source.video_url)]);
  }),
  route('POST v2/post/publish/content/init', TT_PUBLISH, ({ body, caller: c }, tt) => {
    const [info, source] = [(body.post_info ?? {}) as Q, (body.source_info ?? {}) as Q];
    const images = Array.isArray(source.photo_images) ? source.photo_images.map(qs) : [];
    if (qs(body.media_type) !== 'PHOTO' || qs(body.post_mode) !== 'DIRECT_POST')
      throw invalidParams('media_type must be PHOTO and post_mode DIRECT_POST.');
    const max = TIKTOK_RULES.images.max;
    if (qs(source.source) !== 'PULL_FROM_URL' || images.length === 0 || images.length > max)
      throw invalidParams(`source_info.photo_images must list 1 to ${max} URLs pulled from URL.`);
    return tt.init(c, 'photo', info, qs(info.description), images);
  }),
  route({ at: 'POST v2/post/publish/status/fetch', raw: true }, TT_CREATOR(), async ({ body, caller: c, res }, tt) => {
    const p = await tt.publishes.get(qs(body.publish_id));
    if (!p || p.openId !== c.openId)
      throw ttFail(400, 'invalid_publish_id', 'The publish_id does not exist or does not belong to this user.');
    p.polls += 1;
    const data = await publishStatus(tt, p, c);
    await tt.publishes.put(p);
    res.type('application/json').send(okText(data));
  }),
  route('POST v2/video/list', TT_VIDEO_LIST, async ({ q, body, caller: c }, tt) => {
    const start = Number(body.cursor) || 0;
    const count = pageSize(body.max_count, 10, 20);
    const page = await tt.videos.of(c.openId, start, count + 1);
    const videos = page.slice(0, count).map((v) => videoFields(v, q.fields));
    return ttOk({ videos, cursor: start + videos.length, has_more: page.length > count });
  }),
  route('POST v2/video/query', TT_VIDEO_LIST, async ({ q, body, caller: c }, tt) => {
    const filters = body.filters as Record<string, unknown> | undefined;
    const ids = Array.isArray(filters?.video_ids) ? filters.video_ids.map(qs).slice(0, 20) : [];
    const videos = (await tt.videos.many(ids)).filter((v) => v.openId === c.openId);
    return ttOk({ videos: videos.map((v) => videoFields(v, q.fields)), cursor: 0, has_more: false });
  }),
];

/**
 * A publish's status data as JSON text (its post ids are int64s, bare numbers as TikTok sends them):
 * PROCESSING_DOWNLOAD on the first fetch (#sandbox-review: until SANDBOX_REVIEW_MS passed), then the outcome.
 */
async function publishStatus(tt: TikTokSandbox, p: TtPublish, c: TtCreator): Promise<string> {
  if (p.polls < 2 || (p.readyAt && Date.now() < p.readyAt))
    return JSON.stringify({ status: 'PROCESSING_DOWNLOAD', downloaded_bytes: Math.floor(MEDIA_BYTES / 2) });
  const failed = { status: 'FAILED', fail_reason: p.failReason, publicaly_available_post_id: [], uploaded_bytes: 0 };
  if (p.failReason) return JSON.stringify(failed);
  if (!p.videoId && p.privacy !== 'SELF_ONLY') {
    p.videoId = (await tt.videos.add(c.openId, newVideo(p, c))).id;
  }
  const ids = p.videoId ?? '';
  return `{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[${ids}],"downloaded_bytes":${MEDIA_BYTES}}`;
}

/** The video a publish becomes, with a new id (a 19-digit public post id). */
function newVideo({ title, description }: TtPublish, c: TtCreator) {
  const id = `7${Date.now()}${randomInt(10000, 99999)}`.slice(0, 19);
  const [createTime, shareUrl] = [Math.floor(Date.now() / 1000), `https://www.tiktok.com/@${c.username}/video/${id}`];
  return { id, openId: c.openId, title, description, createTime, shareUrl };
}

function videoFields(v: TtVideo, fields: unknown): Record<string, unknown> {
  const m = itemMetrics(v.id);
  const video = { id: v.id, title: v.title, video_description: v.description, create_time: v.createTime };
  const counts = { view_count: m.views, like_count: m.likes, comment_count: m.comments, share_count: m.shares };
  return pickFields({ ...video, share_url: v.shareUrl, ...counts, duration: 15 }, fields) ?? { id: v.id };
}

export const TIKTOK_SIMULATOR = simulator(TIKTOK_LOGIN, TikTokSandbox, TIKTOK_ROUTES);
