import { Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { AppConfig } from '@/config/config';
import type { SandboxErrors } from '../kit/sandbox/magic-words';
import { SandboxHttpError } from '../kit/sandbox/sandbox-http';
import { dailyAccountMetrics } from '../kit/sandbox/sandbox-metrics';
import { SandboxOAuth } from '../kit/sandbox/sandbox-oauth';
import { bearerToken } from '../kit/sandbox/sandbox-request';
import { SandboxStore } from '../kit/sandbox/sandbox-store';

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

/** Google's answers to the magic words (the quota error carries no Retry-After, as on YouTube). */
export const YOUTUBE_SANDBOX_ERRORS: SandboxErrors = {
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

export const YT_TITLE_LIMIT = 100;
export const YT_DESCRIPTION_BYTES = 5000;
export const YT_PRIVACY = ['public', 'unlisted', 'private'];

@Injectable()
export class YouTubeSandbox {
  constructor(
    readonly store: SandboxStore,
    readonly oauth: SandboxOAuth,
    private readonly config: AppConfig,
  ) {}

  get base(): string {
    return `${this.config.publicBaseUrl}/sandbox/youtube`;
  }

  /** The channel behind a bearer token (one channel per sandbox Google account). */
  async channel(authorization: string | undefined): Promise<YtChannel> {
    const token = bearerToken(authorization);
    const info = token ? await this.oauth.verify('youtube', token).catch(() => null) : null;
    if (!info) {
      throw ytFail(
        401,
        'authError',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        'global',
        'UNAUTHENTICATED',
      );
    }
    return channelOf(info.grant.userId);
  }

  session(id: string): Promise<YtSession | null> {
    return this.store.get<YtSession>(['youtube', 'session', id]);
  }

  saveSession(s: YtSession): Promise<void> {
    return this.store.put(['youtube', 'session', s.id], s);
  }

  video(id: string): Promise<YtVideo | null> {
    return this.store.get<YtVideo>(['youtube', 'video', id]);
  }

  async saveVideo(channelId: string, v: YtVideo): Promise<void> {
    await this.store.put(['youtube', 'video', v.id], v);
    await this.store.push(['youtube', 'uploads', channelId], v.id);
  }

  async uploads(channelId: string, max: number): Promise<YtVideo[]> {
    const ids = await this.store.list<string>(['youtube', 'uploads', channelId], 0, max - 1);
    return (await Promise.all(ids.map((id) => this.video(id)))).filter((v): v is YtVideo => v !== null);
  }

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
