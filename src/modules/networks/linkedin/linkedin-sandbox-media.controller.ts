import { Body, Get, Headers, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import {
  LI_MEMBER,
  LI_PART_BYTES,
  LI_REST,
  LI_VIDEO_PROCESSING_MS,
  LiMember,
  LinkedInSandbox,
  LiVideo,
  liFail,
} from './linkedin-sandbox.service';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { Q, qs, readRawBody } from '../kit/sandbox/sandbox-request';

const URL_TTL_MS = 3_600_000;

/** Simulated LinkedIn Images and Videos APIs (initializeUpload → PUT bytes → finalizeUpload). */
@SandboxController('linkedin')
export class LinkedInSandboxMediaController {
  constructor(private readonly li: LinkedInSandbox) {}

  @Post('rest/images')
  @HttpCode(200)
  async images(@Query('action') action: string, @Body() body: Q, @SandboxAuth(LI_REST) m: LiMember): Promise<unknown> {
    if (action !== 'initializeUpload') throw liFail(400, `Unknown action ${action}`, 'ILLEGAL_ARGUMENT');
    const owner = this.li.assertOwner(
      m,
      (body.initializeUploadRequest as Q | undefined)?.owner,
      'images.ACTION-initializeUpload',
    );
    const key = this.li.newMediaKey();
    const urn = `urn:li:image:${key}`;
    await this.li.images.put({ urn, owner, status: 'WAITING_UPLOAD' });
    return {
      value: {
        uploadUrlExpiresAt: Date.now() + URL_TTL_MS,
        uploadUrl: `${this.li.base}/dms-uploads/${key}/uploaded-image/0`,
        image: urn,
      },
    };
  }

  /** Image bytes: bearer token required, an image content type, not empty. */
  @Put('dms-uploads/:key/uploaded-image/0')
  async putImage(
    @Param('key') key: string,
    @SandboxAuth(LI_MEMBER) _m: LiMember,
    @Headers('content-type') type: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const image = await this.li.images.get(`urn:li:image:${key}`);
    if (!image) throw liFail(404, 'Upload URL not found or expired', 'NOT_FOUND');
    const bytes = await readRawBody(req);
    if (bytes.length === 0) throw liFail(400, 'The uploaded media file is empty', 'INVALID_MEDIA');
    if (!(type ?? '').startsWith('image/'))
      throw liFail(400, `Unsupported media type '${type ?? 'none'}' for an image upload`, 'INVALID_MEDIA');
    await this.li.images.put({ ...image, status: 'AVAILABLE' });
    res.status(201).end();
  }

  @Post('rest/videos')
  @HttpCode(200)
  async videos(@Query('action') action: string, @Body() body: Q, @SandboxAuth(LI_REST) m: LiMember): Promise<unknown> {
    if (action === 'initializeUpload') {
      const init = (body.initializeUploadRequest ?? {}) as Q;
      const owner = this.li.assertOwner(m, init.owner, 'videos.ACTION-initializeUpload');
      const size = Number(init.fileSizeBytes);
      if (!Number.isInteger(size) || size <= 0)
        throw liFail(400, 'fileSizeBytes must be a positive number of bytes', 'ILLEGAL_ARGUMENT');
      const key = this.li.newMediaKey();
      const video: LiVideo = { urn: `urn:li:video:${key}`, owner, size, parts: [], finalizedAt: null };
      for (let first = 0; first < size; first += LI_PART_BYTES)
        video.parts.push({ firstByte: first, lastByte: Math.min(size, first + LI_PART_BYTES) - 1, etag: null });
      await this.li.videos.put(video);
      return {
        value: {
          uploadUrlsExpireAt: Date.now() + URL_TTL_MS,
          video: video.urn,
          uploadInstructions: video.parts.map((p, i) => ({
            uploadUrl: `${this.li.base}/dms-uploads/${key}/uploadedVideo/${i}`,
            lastByte: p.lastByte,
            firstByte: p.firstByte,
          })),
          uploadToken: '',
          thumbnailUploadUrl: '',
        },
      };
    }
    if (action === 'finalizeUpload') {
      const fin = (body.finalizeUploadRequest ?? {}) as Q;
      const video = await this.li.videos.get(qs(fin.video));
      if (!video) throw liFail(404, `Video ${qs(fin.video)} not found`, 'NOT_FOUND');
      this.li.assertOwner(m, video.owner, 'videos.ACTION-finalizeUpload');
      const ids = Array.isArray(fin.uploadedPartIds) ? fin.uploadedPartIds : [];
      if (video.parts.some((p, i) => !p.etag || p.etag !== ids[i]) || ids.length !== video.parts.length) {
        throw liFail(400, 'The uploaded part ids do not match the parts of this video upload', 'INVALID_UPLOAD');
      }
      await this.li.videos.put({ ...video, finalizedAt: new Date().toISOString() });
      return {};
    }
    throw liFail(400, `Unknown action ${action}`, 'ILLEGAL_ARGUMENT');
  }

  @Get('rest/videos/:urn')
  async video(@Param('urn') urn: string, @SandboxAuth(LI_REST) m: LiMember): Promise<unknown> {
    const video = await this.li.videos.get(urn);
    if (!video) throw liFail(404, `Video ${urn} not found`, 'NOT_FOUND');
    this.li.assertOwner(m, video.owner, 'videos.GET');
    const status = !video.finalizedAt
      ? 'WAITING_UPLOAD'
      : Date.now() - Date.parse(video.finalizedAt) < LI_VIDEO_PROCESSING_MS
        ? 'PROCESSING'
        : 'AVAILABLE';
    return { id: video.urn, owner: video.owner, status, duration: 0, aspectRatioWidth: 16, aspectRatioHeight: 9 };
  }

  /** One pre-signed part (no token); the ETag is the part id finalizeUpload expects. */
  @Put('dms-uploads/:key/uploadedVideo/:part')
  async putVideoPart(
    @Param('key') key: string,
    @Param('part') part: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const video = await this.li.videos.get(`urn:li:video:${key}`);
    const p = video?.parts[Number(part)];
    if (!video || !p) throw liFail(404, 'Upload URL not found or expired', 'NOT_FOUND');
    const bytes = await readRawBody(req);
    if (bytes.length !== p.lastByte - p.firstByte + 1)
      throw liFail(
        400,
        `Part ${part} of the video upload must be ${p.lastByte - p.firstByte + 1} bytes, got ${bytes.length}`,
        'INVALID_MEDIA',
      );
    p.etag = `/${createHash('sha256').update(bytes).digest('base64url').slice(0, 40)}`;
    await this.li.videos.put(video);
    res.status(200).set('ETag', p.etag).end();
  }
}
