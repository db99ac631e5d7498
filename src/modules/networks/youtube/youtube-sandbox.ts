import { Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { createHash, randomBytes } from 'node:crypto';
import { windowStart } from '../kit/caps';
import { addDays, dayOf, daysBetween } from '../kit/days';
import { type MagicErrors, enforceMagicWords, loseAnswer, losesAnswer } from '../kit/sandbox/magic-words';
import type { SandboxAuthSpec } from '../kit/sandbox/sandbox-auth';
import { addOwnComment, commentRefusal } from '../kit/sandbox/sandbox-comments';
import { SandboxHttpError } from '../kit/sandbox/sandbox-http';
import { oauth2Login, simulator } from '../kit/sandbox/sandbox-login';
import { dailyAccountMetrics, itemMetrics, type SandboxDailyMetrics } from '../kit/sandbox/sandbox-metrics';
import { pageSize, pickFields, qs, Q, readRawBody } from '../kit/sandbox/sandbox-request';
import { routesOf } from '../kit/sandbox/sandbox-routes';
import { SimulatorState } from '../kit/sandbox/sandbox-state';
import { PRIVACY, YOUTUBE_RULES, YOUTUBE_TITLE_LIMIT } from './youtube.adapter';

/** Google's error body: `{ error: { code, message, errors: [{ message, domain, reason }] } }`. */
export function ytFail(code: number, reason: string, message: string, domain = 'youtube.video', status?: string) {
  const error = { code, message, errors: [{ message, domain, reason }], ...(status ? { status } : {}) };
  return new SandboxHttpError(code, { error });
}
const badRequest = (message: string) => ytFail(400, 'badRequest', message, 'global');
const QUOTA = 'The request cannot be completed because you have exceeded your';
const NO_FILTER = 'No filter selected. Expected one of: forUsername, managedByMe, id, mine, forHandle, categoryId';
const NO_PLAYLIST = "The playlist identified with the request's playlistId parameter cannot be found.";

type YtChannel = ReturnType<typeof channelOf>;

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

type YtVideo = ReturnType<typeof newVideo>;

const UNAUTHENTICATED =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.';

/** The channel behind a bearer token (one channel per sandbox Google account). */
export const YT_CHANNEL: SandboxAuthSpec<YtChannel> = {
  network: 'youtube',
  fail: () => ytFail(401, 'authError', UNAUTHENTICATED, 'global', 'UNAUTHENTICATED'),
  caller: (info) => channelOf(info.grant.userId),
};

/** Google OAuth: authorization_code (with a refresh token that does not expire) and refresh_token. */
export const YOUTUBE_LOGIN = oauth2Login({
  network: 'youtube',
  appLabel: 'Google app',
  scopeSeparator: /\s+/,
  authorize: 'o/oauth2/v2/auth',
  token: 'token',
  errors: (body) => ({
    invalidClient: [401, 'invalid_client', 'The OAuth client was not found.'],
    unsupportedGrant: [400, 'unsupported_grant_type', `Invalid grant_type: ${qs(body.grant_type)}`],
    invalidCode: [400, 'invalid_grant', 'Malformed auth code.'],
    invalidRefresh: [400, 'invalid_grant', 'Token has been expired or revoked.'],
  }),
  grants: {
    prefix: 'ya29.',
    accessTtl: 3599,
    refreshTtl: null,
    onRefresh: 'omit',
    scopeJoin: ' ',
    extra: () => ({ token_type: 'Bearer' }),
  },
});

/** Google's answers to the magic words (the quota error carries no Retry-After, as on YouTube). */
export const YT_MAGIC: MagicErrors = {
  invalid_content: (m) => ytFail(400, 'invalidVideoMetadata', m),
  auth_expired: (m) => ytFail(401, 'authError', `Invalid Credentials. ${m}`, 'global', 'UNAUTHENTICATED'),
  media_rejected: (m) => ytFail(400, 'mediaBodyRequired', m),
  rate_limited: (m) => ytFail(403, 'quotaExceeded', `${QUOTA} quota. ${m}`, 'youtube.quota'),
  transient: (m) => ytFail(503, 'backendError', m, 'global'),
};

@Injectable()
export class YouTubeSandbox extends SimulatorState {
  protected readonly network = 'youtube';
  readonly sessions = this.records<YtSession>('session', (x) => x.id);
  /** By channel (its uploads). */
  readonly videos = this.records<YtVideo>('video', (v) => v.id);
}

const newId = (bytes: number): string => randomBytes(bytes).toString('base64url');

export function channelOf(userId: string) {
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

/** A Data API resource with the parts (of `all`) that the comma-separated `part` names. */
const resource = (kind: string, id: string, all: Record<string, unknown>, part: string) => ({
  kind,
  etag: etag(id),
  id,
  ...pickFields(all, part),
});

const list = (kind: string, tag: string, items: unknown[], resultsPerPage: number) => ({
  kind: `youtube#${kind}ListResponse`,
  etag: etag(tag),
  items,
  pageInfo: { totalResults: items.length, resultsPerPage },
});

/** Per-day numbers of the YouTube Analytics report, from sandbox-metrics. likes = engagement − shares. */
const REPORT_METRICS: Record<string, (m: SandboxDailyMetrics, channelId: string) => number> = {
  views: (m) => m.views,
  likes: (m) => m.engagement - m.shares,
  comments: () => 0,
  shares: (m) => m.shares,
  subscribersGained: (m, c) => Math.max(0, m.followers - dailyAccountMetrics(c, addDays(m.date, -1)).followers),
  subscribersLost: () => 0,
  estimatedMinutesWatched: (m) => m.views * 2,
};

const route = routesOf<YouTubeSandbox>();

const YOUTUBE_ROUTES = [
  route('GET youtube/v3/channels', YT_CHANNEL, async ({ q, caller: ch }, yt) => {
    const part = qs(q.part).split(',').filter(Boolean).join();
    if (!part) throw ytFail(400, 'missingRequiredParameter', NO_FILTER, 'youtube.parameter');
    const mine = qs(q.mine) === 'true' || qs(q.id).split(',').includes(ch.id);
    const all = {
      snippet: {
        title: ch.title,
        description: 'A simulated YouTube channel.',
        customUrl: ch.customUrl,
        publishedAt: '2024-01-01T00:00:00Z',
        thumbnails: { default: { url: yt.sampleMedia('image.jpg'), width: 88, height: 88 } },
      },
      contentDetails: { relatedPlaylists: { likes: '', uploads: ch.uploadsPlaylistId } },
      statistics: {
        viewCount: '0',
        subscriberCount: String(dailyAccountMetrics(ch.id, dayOf(Date.now())).followers),
        hiddenSubscriberCount: false,
        videoCount: String(await yt.videos.countOf(ch.id)),
      },
    };
    return list('channel', `${ch.id}:${part}`, mine ? [resource('youtube#channel', ch.id, all, part)] : [], 5);
  }),
  /** commentThreads.insert: the channel's top-level comment on one of its videos; answers the commentThread. */
  route({ at: 'POST youtube/v3/commentThreads', status: 201 }, YT_CHANNEL, async ({ q, body, caller: ch }, yt) => {
    if (!qs(q.part).split(',').includes('snippet'))
      throw ytFail(400, 'invalidPart', "The 'part' parameter must include snippet.", 'global');
    const snippet = (body.snippet ?? {}) as Q;
    const videoId = qs(snippet.videoId);
    const text = qs(((snippet.topLevelComment ?? {}) as { snippet?: Q }).snippet?.textOriginal);
    if (!videoId || !(await yt.videos.get(videoId)))
      throw ytFail(404, 'videoNotFound', 'The video identified by the videoId parameter could not be found.');
    if (!text.trim()) throw ytFail(400, 'commentTextRequired', 'The comment resource must contain a textOriginal.');
    const refused = commentRefusal('youtube', text);
    if (refused) throw ytFail(400, 'processingFailure', refused);
    const author = { id: ch.id, name: ch.title };
    const { id, createdAt: at } = await addOwnComment(yt.store, 'youtube', videoId, author, text, newId(18));
    const by = { channelId: ch.id, videoId };
    const shown = { textDisplay: text, textOriginal: text, authorDisplayName: ch.title };
    const rating = { canRate: true, viewerRating: 'none', likeCount: 0 };
    const comment = { ...by, ...shown, authorChannelId: { value: ch.id }, ...rating, publishedAt: at, updatedAt: at };
    const topLevelComment = { kind: 'youtube#comment', etag: etag(`${id}:c`), id, snippet: comment };
    const thread = { ...by, topLevelComment, canReply: true, totalReplyCount: 0, isPublic: true };
    return { kind: 'youtube#commentThread', etag: etag(id), id, snippet: thread };
  }),
  /** Step 1: the video resource → a session URL in Location. */
  route({ at: 'POST upload/youtube/v3/videos', raw: true }, YT_CHANNEL, async (call, yt) => {
    const { q, body, headers: h, caller: ch, res } = call;
    if (qs(q.uploadType) !== 'resumable') throw badRequest('The sandbox supports uploadType=resumable only.');
    const snippet = (body.snippet ?? {}) as Q;
    const status = (body.status ?? {}) as Q;
    const [title, description] = [qs(snippet.title), qs(snippet.description)];
    if (!title.trim() || title.length > YOUTUBE_TITLE_LIMIT || /[<>]/.test(title))
      throw ytFail(400, 'invalidTitle', 'The request metadata specifies an invalid or empty video title.');
    if (Buffer.byteLength(description) > YOUTUBE_RULES.maxText || /[<>]/.test(description))
      throw ytFail(400, 'invalidDescription', 'The request metadata specifies an invalid video description.');
    const privacy = qs(status.privacyStatus) || 'public';
    if (!PRIVACY.includes(privacy))
      throw ytFail(400, 'invalidVideoMetadata', `The request metadata is invalid: privacyStatus '${privacy}'.`);
    const size = Number(h['x-upload-content-length']);
    if (!Number.isInteger(size) || size <= 0)
      throw badRequest('X-Upload-Content-Length must give the size of the video in bytes.');
    // videos.insert has its own bucket per project per day, reset at midnight Pacific time
    // (youtubeNetwork's cap): Google's quotaExceeded past it, for every channel alike.
    const cap = yt.caps.cap('youtube');
    const quota = `${QUOTA} <a href="/youtube/v3/getting-started#quota">quota</a>.`;
    if ((await yt.store.incr(['youtube', 'inserts', windowStart(cap.window, new Date()).toISOString()])) > cap.limit)
      throw ytFail(403, 'quotaExceeded', quota, 'youtube.quota');
    // The upload (PUT) creates the video: a lost answer happens there.
    const text = `${title}\n${description}`;
    const attempt = { platform: 'youtube', accountId: ch.id, text, contentKey: String(size) };
    await enforceMagicWords(yt.store, attempt, YT_MAGIC, 'later');
    const session: YtSession = {
      id: newId(24),
      channelId: ch.id,
      snippet: { ...snippet, title, description },
      status: { ...status, privacyStatus: privacy },
      size,
      contentType: h['x-upload-content-type'] ?? 'application/octet-stream',
      received: 0,
      videoId: null,
    };
    await yt.sessions.put(session);
    const part = qs(q.part) || 'snippet,status';
    const location = `${yt.base}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${session.id}&part=${part}`;
    res.status(200).set('Location', location).end();
  }),
  /** Step 2/3: bytes (whole or from an offset with Content-Range), or a status query (`bytes * /size`, no body). */
  route({ at: 'PUT upload/youtube/v3/videos', raw: true }, YT_CHANNEL, async ({ q, headers, caller, req, res }, yt) => {
    const session = await yt.sessions.get(String(q.upload_id ?? ''));
    if (!session || session.channelId !== caller.id) throw ytFail(404, 'notFound', 'Not Found', 'global');
    const bytes = await readRawBody(req);
    const range = headers['content-range'] ?? '';
    if (session.videoId || /^bytes \*\/\d+$/.test(range) || (bytes.length === 0 && range))
      return answer(yt, session, res);
    const first = Number(/^bytes (\d+)-(\d+)\/(\d+)$/.exec(range)?.[1] ?? 0);
    if (first !== session.received) throw badRequest(`Invalid Content-Range: expected bytes from ${session.received}.`);
    session.received = Math.min(session.size, session.received + bytes.length);
    if (session.received === session.size)
      session.videoId = (await yt.videos.add(session.channelId, newVideo(session, caller.title))).id;
    await yt.sessions.put(session);
    if (session.videoId && losesAnswer(`${qs(session.snippet.title)}\n${qs(session.snippet.description)}`, 'youtube'))
      await loseAnswer(yt.store);
    return answer(yt, session, res, 201);
  }),
  route('GET youtube/v3/videos', YT_CHANNEL, async ({ q }, yt) => {
    const ids = qs(q.id).split(',').filter(Boolean).slice(0, 50);
    const items = (await yt.videos.many(ids)).map((v) => {
      const m = itemMetrics(v.id);
      const [viewCount, likeCount, commentCount] = [m.views, m.likes, m.comments].map(String);
      const statistics = { viewCount, likeCount, favoriteCount: '0', commentCount };
      return resource(v.kind, v.id, { snippet: v.snippet, status: v.status, statistics }, qs(q.part));
    });
    return list('video', ids.join(), items, items.length);
  }),
  route('GET youtube/v3/playlistItems', YT_CHANNEL, async ({ q, caller: ch }, yt) => {
    const playlistId = ch.uploadsPlaylistId;
    if (qs(q.playlistId) !== playlistId) throw ytFail(404, 'playlistNotFound', NO_PLAYLIST, 'youtube.playlistItem');
    const max = pageSize(qs(q.maxResults), 5, 50);
    const items = (await yt.videos.of(ch.id, 0, max)).map(({ id: videoId, snippet: s }, position) => ({
      kind: 'youtube#playlistItem',
      etag: etag(`${playlistId}:${videoId}`),
      id: `${playlistId}.${videoId}`,
      snippet: {
        publishedAt: s.publishedAt,
        channelId: ch.id,
        title: s.title,
        description: s.description,
        channelTitle: ch.title,
        playlistId,
        position,
        resourceId: { kind: 'youtube#video', videoId },
      },
    }));
    return list('playlistItem', playlistId, items, max);
  }),
  /** youtubeanalytics.googleapis.com/v2/reports with dimensions=day. */
  route('GET v2/reports', YT_CHANNEL, ({ q, caller: ch }) => {
    if (qs(q.ids) !== 'channel==MINE' && qs(q.ids) !== `channel==${ch.id}`)
      throw ytFail(403, 'forbidden', 'Forbidden', 'global');
    const metrics = qs(q.metrics).split(',').filter(Boolean);
    const unknown = metrics.find((m) => !Object.hasOwn(REPORT_METRICS, m));
    if (unknown || metrics.length === 0)
      throw badRequest(`Unknown identifier (${unknown ?? ''}) given in field parameters.metrics.`);
    if (qs(q.dimensions) !== 'day') throw badRequest('The sandbox reports support dimensions=day only.');
    const [from, to] = [qs(q.startDate), qs(q.endDate)];
    if (!/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to) || from > to)
      throw badRequest('startDate and endDate must be YYYY-MM-DD with startDate <= endDate.');
    const rows = daysBetween(from, to, 366).map((d) => {
      const day = dailyAccountMetrics(ch.id, d);
      return [d, ...metrics.map((m) => REPORT_METRICS[m](day, ch.id))];
    });
    const columns = metrics.map((name) => ({ name, columnType: 'METRIC', dataType: 'INTEGER' }));
    const day = { name: 'day', columnType: 'DIMENSION', dataType: 'STRING' };
    return { kind: 'youtubeAnalytics#resultTable', columnHeaders: [day, ...columns], rows };
  }),
];

/** 308 + Range while bytes are missing; the video once the upload is complete. */
async function answer(yt: YouTubeSandbox, session: YtSession, res: Response, completeStatus = 200): Promise<void> {
  if (session.videoId) return void res.status(completeStatus).json(await yt.videos.get(session.videoId));
  if (session.received > 0) res.set('Range', `bytes=0-${session.received - 1}`);
  res.status(308).end();
}

function newVideo(session: YtSession, channelTitle: string) {
  const id = newId(8).slice(0, 11);
  const { channelId, snippet: s, status } = session;
  // Processing fails for bytes that were not declared as a video, as YouTube reports it.
  const playable = session.contentType.startsWith('video/') || session.contentType === 'application/octet-stream';
  return {
    kind: 'youtube#video',
    etag: etag(id),
    id,
    snippet: {
      publishedAt: new Date().toISOString(),
      channelId,
      title: s.title,
      description: s.description,
      channelTitle,
      categoryId: s.categoryId ?? '22',
      tags: s.tags,
      liveBroadcastContent: 'none',
    },
    status: {
      uploadStatus: playable ? 'uploaded' : 'failed',
      ...(playable ? {} : { failureReason: 'invalidFile' }),
      privacyStatus: status.privacyStatus,
      license: 'youtube',
      embeddable: true,
      publicStatsViewable: true,
      selfDeclaredMadeForKids: status.selfDeclaredMadeForKids === true,
    },
  };
}

export const YOUTUBE_SIMULATOR = simulator(YOUTUBE_LOGIN, YouTubeSandbox, YOUTUBE_ROUTES);
