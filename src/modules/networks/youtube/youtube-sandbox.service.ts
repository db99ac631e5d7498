import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { SandboxHttpError } from '../kit/sandbox/sandbox-http';
import { dailyAccountMetrics } from '../kit/sandbox/sandbox-metrics';
import type { MagicErrors } from '../kit/sandbox/magic-words';
import type { SandboxAuthSpec } from '../kit/sandbox/sandbox-auth';
import { grantRoute, type SandboxLogin } from '../kit/sandbox/sandbox-login';
import { oauthError } from '../kit/sandbox/sandbox-oauth';
import { qs } from '../kit/sandbox/sandbox-request';
import { SimulatorState } from '../kit/sandbox/sandbox-store';

/** State and rules of the simulated YouTube (channels, resumable upload sessions, videos). */

/** Google's error body: `{ error: { code, message, errors: [{ message, domain, reason }] } }`. */
export function ytFail(
  code: number,
  reason: string,
  message: string,
  domain = 'youtube.video',
  status?: string,
): SandboxHttpError {
  return new SandboxHttpError(code, {
    error: { code, message, errors: [{ message, domain, reason }], ...(status ? { status } : {}) },
  });
}

export interface YtChannel {
  id: string;
  uploadsPlaylistId: string;
  title: string;
  customUrl: string;
}

export interface YtSession {
  id: string;
  channelId: string;
  snippet: Record<string, unknown>;
  status: Record<string, unknown>;
  size: number;
  contentType: string;
  received: number;
  videoId: string | null;
}

export interface YtVideo {
  kind: 'youtube#video';
  etag: string;
  id: string;
  snippet: Record<string, unknown>;
  status: Record<string, unknown>;
}

export const YT_PRIVACY = ['public', 'unlisted', 'private'];

/** The channel behind a bearer token (one channel per sandbox Google account). */
export const YT_CHANNEL: SandboxAuthSpec<YtChannel> = {
  network: 'youtube',
  fail: () =>
    ytFail(
      401,
      'authError',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      'global',
      'UNAUTHENTICATED',
    ),
  caller: (info) => channelOf(info.grant.userId),
};

const ACCESS_TTL = 3599;

/** Google OAuth: authorization_code (with a refresh token that does not expire) and refresh_token. */
export const YOUTUBE_LOGIN: SandboxLogin = {
  network: 'youtube',
  appLabel: 'Google app',
  scopeSeparator: /\s+/,
  authorize: 'o/oauth2/v2/auth',
  tokens: [
    grantRoute(
      'youtube',
      'token',
      (body) => ({
        invalidClient: () => oauthError(401, 'invalid_client', 'The OAuth client was not found.'),
        unsupportedGrant: () => oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${qs(body.grant_type)}`),
        invalidGrant: (refreshingGrant) =>
          oauthError(
            400,
            'invalid_grant',
            refreshingGrant ? 'Token has been expired or revoked.' : 'Malformed auth code.',
          ),
      }),
      async (oauth, grant, refreshing) => {
        const t = await oauth.issueTokens(grant, {
          accessTtlSeconds: ACCESS_TTL,
          ...(refreshing ? {} : { refreshTtlSeconds: null }),
          prefix: 'ya29.',
        });
        return {
          access_token: t.accessToken,
          expires_in: ACCESS_TTL,
          ...(refreshing ? {} : { refresh_token: t.refreshToken }),
          scope: grant.scopes.join(' '),
          token_type: 'Bearer',
        };
      },
    ),
  ],
};

/** Google's answers to the magic words (the quota error carries no Retry-After, as on YouTube). */
export const YT_MAGIC: MagicErrors = {
  invalid_content: (m) => ytFail(400, 'invalidVideoMetadata', m),
  auth_expired: (m) => ytFail(401, 'authError', `Invalid Credentials. ${m}`, 'global', 'UNAUTHENTICATED'),
  media_rejected: (m) => ytFail(400, 'mediaBodyRequired', m),
  rate_limited: (m) =>
    ytFail(
      403,
      'quotaExceeded',
      `The request cannot be completed because you have exceeded your quota. ${m}`,
      'youtube.quota',
    ),
  transient: (m) => ytFail(503, 'backendError', m, 'global'),
};

@Injectable()
export class YouTubeSandbox extends SimulatorState {
  protected readonly network = 'youtube';
  readonly sessions = this.records<YtSession>('session', (x) => x.id);
  /** By channel (its uploads). */
  readonly videos = this.records<YtVideo>('video', (v) => v.id);

  newId(bytes: number): string {
    return randomBytes(bytes).toString('base64url');
  }

  /** The channel resource with the requested parts. */
  channelResource(ch: YtChannel, parts: string[], videoCount: number): Record<string, unknown> {
    const today = new Date().toISOString().slice(0, 10);
    const all: Record<string, unknown> = {
      snippet: {
        title: ch.title,
        description: 'A simulated YouTube channel.',
        customUrl: ch.customUrl,
        publishedAt: '2024-01-01T00:00:00Z',
        thumbnails: {
          default: { url: `${this.base.replace('/youtube', '/_control')}/media/image.jpg`, width: 88, height: 88 },
        },
      },
      contentDetails: { relatedPlaylists: { likes: '', uploads: ch.uploadsPlaylistId } },
      statistics: {
        viewCount: '0',
        subscriberCount: String(dailyAccountMetrics(ch.id, today).followers),
        hiddenSubscriberCount: false,
        videoCount: String(videoCount),
      },
    };
    return {
      kind: 'youtube#channel',
      etag: etag(ch.id),
      id: ch.id,
      ...Object.fromEntries(parts.filter((p) => p in all).map((p) => [p, all[p]])),
    };
  }
}

export function channelOf(userId: string): YtChannel {
  const tail = createHash('sha256').update(`youtube:${userId}`).digest('base64url').slice(0, 22);
  return {
    id: `UC${tail}`,
    uploadsPlaylistId: `UU${tail}`,
    title: `Sandbox Channel ${userId.slice(-4)}`,
    customUrl: `@sandboxchannel${userId.slice(-6)}`,
  };
}

export function etag(seed: string): string {
  return createHash('sha1').update(seed).digest('base64url').slice(0, 27);
}
