import { Body, Get, Headers, Post, Put, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { enforceMagicWords, loseAnswer, losesAnswer } from '../kit/sandbox/magic-words';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { addOwnComment, commentRefusal } from '../kit/sandbox/sandbox-comments';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { Q, qs, readRawBody } from '../kit/sandbox/sandbox-request';
import {
  etag,
  YouTubeSandbox,
  YtChannel,
  YT_CHANNEL,
  YT_MAGIC,
  YtSession,
  YtVideo,
  ytFail,
  YT_PRIVACY,
  YOUTUBE_LOGIN,
} from './youtube-sandbox.service';
import { YOUTUBE_RULES, YOUTUBE_TITLE_LIMIT } from './youtube.adapter';
import { YouTubeSandboxDataController } from './youtube-sandbox-data.controller';
import { LoginRoutes } from '../kit/sandbox/sandbox-login';
import { windowStart } from '../kit/caps';
import { SandboxCaps } from '../kit/sandbox/sandbox-caps';

type H = Record<string, string | undefined>;

/**
 * Simulated Google OAuth and YouTube Data API v3: channels?mine=true and the resumable upload
 * protocol (POST → Location session URL → PUT bytes, status queries with `Content-Range: bytes * /size`).
 */
@SandboxController('youtube')
export class YouTubeSandboxController {
  constructor(
    private readonly yt: YouTubeSandbox,
    private readonly caps: SandboxCaps,
  ) {}

  @Get('youtube/v3/channels')
  async channels(@Query() q: Q, @SandboxAuth(YT_CHANNEL) ch: YtChannel): Promise<unknown> {
    const parts = qs(q.part).split(',').filter(Boolean);
    if (parts.length === 0)
      throw ytFail(
        400,
        'missingRequiredParameter',
        'No filter selected. Expected one of: forUsername, managedByMe, id, mine, forHandle, categoryId',
        'youtube.parameter',
      );
    const mine = qs(q.mine) === 'true' || qs(q.id).split(',').includes(ch.id);
    const items = mine ? [this.yt.channelResource(ch, parts, await this.yt.videos.countOf(ch.id))] : [];
    return {
      kind: 'youtube#channelListResponse',
      etag: etag(`${ch.id}:${parts.join()}`),
      pageInfo: { totalResults: items.length, resultsPerPage: 5 },
      items,
    };
  }

  /** commentThreads.insert: the channel's top-level comment on one of its videos; answers the commentThread. */
  @Post('youtube/v3/commentThreads')
  async insertCommentThread(@SandboxAuth(YT_CHANNEL) ch: YtChannel, @Query() q: Q, @Body() body: Q): Promise<unknown> {
    if (!qs(q.part).split(',').includes('snippet'))
      throw ytFail(400, 'invalidPart', "The 'part' parameter must include snippet.", 'global');
    const snippet = (body.snippet ?? {}) as Q;
    const videoId = qs(snippet.videoId);
    const text = qs(((snippet.topLevelComment ?? {}) as { snippet?: Q }).snippet?.textOriginal);
    const video = videoId ? await this.yt.videos.get(videoId) : null;
    if (!video) throw ytFail(404, 'videoNotFound', 'The video identified by the videoId parameter could not be found.');
    if (!text.trim()) throw ytFail(400, 'commentTextRequired', 'The comment resource must contain a textOriginal.');
    const refused = commentRefusal('youtube', text);
    if (refused) throw ytFail(400, 'processingFailure', refused);
    const author = { id: ch.id, name: ch.title };
    const comment = await addOwnComment(this.yt.store, 'youtube', videoId, author, text, this.yt.newId(18));
    const at = comment.createdAt;
    return {
      kind: 'youtube#commentThread',
      etag: etag(comment.id),
      id: comment.id,
      snippet: {
        channelId: ch.id,
        videoId,
        topLevelComment: {
          kind: 'youtube#comment',
          etag: etag(`${comment.id}:c`),
          id: comment.id,
          snippet: {
            channelId: ch.id,
            videoId,
            textDisplay: text,
            textOriginal: text,
            authorDisplayName: ch.title,
            authorChannelId: { value: ch.id },
            canRate: true,
            viewerRating: 'none',
            likeCount: 0,
            publishedAt: at,
            updatedAt: at,
          },
        },
        canReply: true,
        totalReplyCount: 0,
        isPublic: true,
      },
    };
  }

  /** Step 1: the video resource → a session URL in Location. */
  @Post('upload/youtube/v3/videos')
  async startUpload(
    @SandboxAuth(YT_CHANNEL) ch: YtChannel,
    @Query() q: Q,
    @Body() body: Q,
    @Headers() h: H,
    @Res() res: Response,
  ): Promise<void> {
    if (qs(q.uploadType) !== 'resumable')
      throw ytFail(400, 'badRequest', 'The sandbox supports uploadType=resumable only.', 'global');
    const snippet = (body.snippet ?? {}) as Q;
    const status = (body.status ?? {}) as Q;
    const title = qs(snippet.title);
    const description = qs(snippet.description);
    if (!title.trim() || title.length > YOUTUBE_TITLE_LIMIT || /[<>]/.test(title))
      throw ytFail(400, 'invalidTitle', 'The request metadata specifies an invalid or empty video title.');
    if (Buffer.byteLength(description) > YOUTUBE_RULES.maxText || /[<>]/.test(description))
      throw ytFail(400, 'invalidDescription', 'The request metadata specifies an invalid video description.');
    const privacy = qs(status.privacyStatus) || 'public';
    if (!YT_PRIVACY.includes(privacy))
      throw ytFail(400, 'invalidVideoMetadata', `The request metadata is invalid: privacyStatus '${privacy}'.`);
    const size = Number(h['x-upload-content-length']);
    if (!Number.isInteger(size) || size <= 0)
      throw ytFail(400, 'badRequest', 'X-Upload-Content-Length must give the size of the video in bytes.', 'global');
    // videos.insert has its own bucket per project per day, reset at midnight Pacific time
    // (youtubeNetwork's cap): Google's quotaExceeded past it, for every channel alike.
    const cap = this.caps.cap('youtube');
    const day = ['youtube', 'inserts', windowStart(cap.window, new Date()).toISOString()];
    if ((await this.yt.store.incr(day)) > cap.limit)
      throw ytFail(
        403,
        'quotaExceeded',
        'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        'youtube.quota',
      );
    // The upload (PUT) creates the video: a lost answer happens there.
    await enforceMagicWords(
      this.yt.store,
      { platform: 'youtube', accountId: ch.id, text: `${title}\n${description}`, contentKey: String(size) },
      YT_MAGIC,
      'later',
    );
    const session: YtSession = {
      id: this.yt.newId(24),
      channelId: ch.id,
      snippet: { ...snippet, title, description },
      status: { ...status, privacyStatus: privacy },
      size,
      contentType: h['x-upload-content-type'] ?? 'application/octet-stream',
      received: 0,
      videoId: null,
    };
    await this.yt.sessions.put(session);
    const part = qs(q.part) || 'snippet,status';
    res
      .status(200)
      .set(
        'Location',
        `${this.yt.base}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${session.id}&part=${part}`,
      )
      .end();
  }

  /** Step 2/3: bytes (whole or from an offset with Content-Range), or a status query (`bytes * /size`, no body). */
  @Put('upload/youtube/v3/videos')
  async upload(
    @SandboxAuth(YT_CHANNEL) ch: YtChannel,
    @Query('upload_id') uploadId: string,
    @Headers() h: H,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const session = await this.yt.sessions.get(uploadId ?? '');
    if (!session || session.channelId !== ch.id) throw ytFail(404, 'notFound', 'Not Found', 'global');
    const bytes = await readRawBody(req);
    const range = h['content-range'] ?? '';
    if (/^bytes \*\/\d+$/.test(range) || (bytes.length === 0 && range)) return this.answer(session, res);
    if (session.videoId) return this.answer(session, res);
    const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range);
    const first = m ? Number(m[1]) : 0;
    if (first !== session.received)
      throw ytFail(400, 'badRequest', `Invalid Content-Range: expected bytes from ${session.received}.`, 'global');
    session.received = Math.min(session.size, session.received + bytes.length);
    if (session.received === session.size) session.videoId = await this.createVideo(session, ch.title);
    await this.yt.sessions.put(session);
    if (session.videoId && losesAnswer(`${qs(session.snippet.title)}\n${qs(session.snippet.description)}`, 'youtube'))
      await loseAnswer(this.yt.store);
    return this.answer(session, res, 201);
  }

  /** 308 + Range while bytes are missing; the video once the upload is complete. */
  private async answer(session: YtSession, res: Response, completeStatus = 200): Promise<void> {
    if (!session.videoId) {
      if (session.received > 0) res.set('Range', `bytes=0-${session.received - 1}`);
      res.status(308).end();
      return;
    }
    res.status(completeStatus).json(await this.yt.videos.get(session.videoId));
  }

  private async createVideo(session: YtSession, channelTitle: string): Promise<string> {
    const id = this.yt.newId(8).slice(0, 11);
    // Processing fails for bytes that were not declared as a video, as YouTube reports it.
    const playable = session.contentType.startsWith('video/') || session.contentType === 'application/octet-stream';
    const video: YtVideo = {
      kind: 'youtube#video',
      etag: etag(id),
      id,
      snippet: {
        publishedAt: new Date().toISOString(),
        channelId: session.channelId,
        title: session.snippet.title,
        description: session.snippet.description,
        channelTitle,
        categoryId: session.snippet.categoryId ?? '22',
        tags: session.snippet.tags,
        liveBroadcastContent: 'none',
      },
      status: {
        uploadStatus: playable ? 'uploaded' : 'failed',
        ...(playable ? {} : { failureReason: 'invalidFile' }),
        privacyStatus: session.status.privacyStatus,
        license: 'youtube',
        embeddable: true,
        publicStatsViewable: true,
        selfDeclaredMadeForKids: session.status.selfDeclaredMadeForKids === true,
      },
    };
    await this.yt.videos.add(session.channelId, video);
    return id;
  }
}

/** The YouTube simulator: its login and its API routes. */
export const YOUTUBE_SIMULATOR = {
  controllers: [LoginRoutes(YOUTUBE_LOGIN), YouTubeSandboxController, YouTubeSandboxDataController],
  providers: [YouTubeSandbox],
};
