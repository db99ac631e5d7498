import { AppConfig } from '@/config/config';
import { SandboxMediaFetch } from '../kit/sandbox/sandbox-media';
import { Injectable } from '@nestjs/common';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { SandboxHttpError, withRetryAfter } from '../kit/sandbox/sandbox-http';
import { MagicErrors, SANDBOX_RATE_LIMIT_SECONDS } from '../kit/sandbox/magic-words';
import type { SandboxAuthSpec } from '../kit/sandbox/sandbox-auth';
import { grantRoute, type SandboxLogin } from '../kit/sandbox/sandbox-login';
import { oauthError } from '../kit/sandbox/sandbox-oauth';
import { SandboxStore, SimulatorState } from '../kit/sandbox/sandbox-store';

/** State and rules of the simulated TikTok (creators, publishes, videos). */

const logId = (): string =>
  `${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}${randomBytes(9).toString('hex').toUpperCase()}`;

/** TikTok's envelope with an error: `{ data: {}, error: { code, message, log_id } }`. */
export function ttFail(status: number, code: string, message: string): SandboxHttpError {
  return new SandboxHttpError(status, { data: {}, error: { code, message, log_id: logId() } });
}

export function ttOk(data: unknown): { data: unknown; error: { code: string; message: string; log_id: string } } {
  return { data, error: { code: 'ok', message: '', log_id: logId() } };
}

/** The same envelope as raw JSON text, for bodies carrying int64 ids as bare numbers. */
export function ttOkText(dataJson: string): string {
  return `{"data":${dataJson},"error":{"code":"ok","message":"","log_id":"${logId()}"}}`;
}

export interface TtCreator {
  openId: string;
  userId: string;
  username: string;
  displayName: string;
  scopes: string[];
  token: string;
}

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
    const userId = info.grant.userId;
    return {
      openId: openIdOf(userId),
      userId,
      username: `sandbox.creator${userId.slice(-6)}`,
      displayName: `Sandbox Creator ${userId.slice(-4)}`,
      scopes: info.grant.scopes,
      token,
    };
  },
});

const ACCESS_TTL = 86_400;
const REFRESH_TTL = 365 * 86_400;

/** TikTok Login Kit (OAuth v2, client_key); refresh tokens rotate: every refresh answers with a new one. */
export const TIKTOK_LOGIN: SandboxLogin = {
  network: 'tiktok',
  appLabel: 'TikTok app',
  clientIdParam: 'client_key',
  authorize: 'v2/auth/authorize',
  tokens: [
    grantRoute(
      'tiktok',
      'v2/oauth/token',
      () => {
        const fail = (error: string, description: string) =>
          oauthError(400, error, description, { log_id: `${Date.now()}SANDBOX` });
        return {
          clientIdParam: 'client_key',
          invalidClient: () => fail('invalid_client', 'Client key or secret is incorrect.'),
          unsupportedGrant: () => fail('invalid_request', 'The request parameters are malformed.'),
          invalidGrant: () => fail('invalid_grant', 'Authorization code or refresh token is expired or invalid.'),
        };
      },
      async (oauth, grant) => {
        const ttls = { accessTtlSeconds: ACCESS_TTL, refreshTtlSeconds: REFRESH_TTL };
        const t = await oauth.issueTokens(grant, { ...ttls, prefix: 'act.' });
        return {
          access_token: t.accessToken,
          expires_in: ACCESS_TTL,
          open_id: openIdOf(grant.userId),
          refresh_expires_in: REFRESH_TTL,
          refresh_token: t.refreshToken,
          scope: grant.scopes.join(','),
          token_type: 'Bearer',
        };
      },
    ),
  ],
};

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
