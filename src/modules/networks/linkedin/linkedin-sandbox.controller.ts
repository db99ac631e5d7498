import { LINKEDIN_RULES } from './linkedin.adapter';
import { Body, Get, Headers, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import {
  collection,
  LI_MAGIC,
  LI_MEMBER,
  LI_PART_BYTES,
  LI_REST,
  LI_VIDEO_PROCESSING_MS,
  LinkedInSandbox,
  LiMember,
  LiOrg,
  LiPost,
  LiVideo,
  liFail,
  littleTextToPlain,
  LINKEDIN_LOGIN,
} from './linkedin-sandbox.service';
import { enforceMagicWords } from '../kit/sandbox/magic-words';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { addOwnComment, commentRefusal } from '../kit/sandbox/sandbox-comments';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { Q, qs, readRawBody } from '../kit/sandbox/sandbox-request';
import { LinkedInSandboxAnalyticsController } from './linkedin-sandbox-analytics.controller';
import { LoginRoutes } from '../kit/sandbox/sandbox-login';
import { SandboxCaps } from '../kit/sandbox/sandbox-caps';

const URL_TTL_MS = 3_600_000;

/**
 * Simulated LinkedIn OpenID userinfo, organizationAcls/organizations, the Posts and Comments APIs, and the
 * Images and Videos APIs (initializeUpload → PUT bytes → finalizeUpload).
 */
@SandboxController('linkedin')
export class LinkedInSandboxController {
  constructor(
    private readonly li: LinkedInSandbox,
    private readonly caps: SandboxCaps,
  ) {}

  @Get('v2/userinfo')
  userinfo(@SandboxAuth(LI_MEMBER) m: LiMember): Record<string, unknown> {
    const [given, ...family] = m.name.split(' ');
    return {
      sub: m.sub,
      name: m.name,
      given_name: given,
      family_name: family.join(' '),
      picture: `${this.li.base.replace('/linkedin', '/_control')}/media/image.png`,
      locale: 'en-US',
      email_verified: true,
      email: `${m.sub}@sandbox.example`,
    };
  }

  @Get('rest/organizationAcls')
  acls(@Query() q: Q, @SandboxAuth(LI_REST) m: LiMember): unknown {
    if (qs(q.q) !== 'roleAssignee') throw liFail(400, `Invalid finder: ${qs(q.q)}`, 'ILLEGAL_ARGUMENT');
    const role = qs(q.role);
    const acl = (o: LiOrg) => ({ roleAssignee: m.urn, state: 'APPROVED', role: 'ADMINISTRATOR', organization: o.urn });
    return collection(role && role !== 'ADMINISTRATOR' ? [] : m.orgs.map(acl));
  }

  @Get('rest/organizations/:id')
  organization(@Param('id') rawId: string, @SandboxAuth(LI_REST) m: LiMember): unknown {
    const id = Number(rawId);
    const org = m.orgs.find((o) => o.id === id);
    if (!org)
      throw liFail(
        403,
        `Not enough permissions to access: organizations.GET.20240101 for urn:li:organization:${id}`,
        'ACCESS_DENIED',
        100,
      );
    return {
      vanityName: org.vanity,
      localizedName: org.name,
      id: org.id,
      $URN: org.urn,
      localizedWebsite: `https://${org.vanity}.example.com`,
      primaryOrganizationType: 'NONE',
    };
  }

  @Post('rest/posts')
  async createPost(@Body() body: Q, @SandboxAuth(LI_REST) m: LiMember, @Res() res: Response): Promise<void> {
    for (const field of ['author', 'commentary', 'visibility', 'distribution', 'lifecycleState']) {
      if (body[field] === undefined)
        throw liFail(422, `ERROR :: /${field} :: field is required but not found and has no default value\n`);
    }
    const author = this.li.assertOwner(m, body.author, 'partnerApiPostsExternal.CREATE.20240101');
    const plain = littleTextToPlain(qs(body.commentary));
    if (plain.length > LINKEDIN_RULES.maxText)
      throw liFail(
        422,
        `ERROR :: /commentary :: length of ${plain.length} exceeds the maximum allowed length of ${LINKEDIN_RULES.maxText}\n`,
      );
    const content =
      body.content && typeof body.content === 'object' ? (body.content as Record<string, unknown>) : undefined;
    const hasVideo = await this.checkContent(author, content);
    // The member's daily limit (linkedinNetwork's cap): LinkedIn's throttle answer past it.
    const times = (await this.li.posts.of(author)).map((p) => p.createdAt);
    if (this.caps.reached('linkedin', times))
      throw liFail(429, 'Resource level throttle MEMBER DAY limit for calls to this resource is reached.');
    await enforceMagicWords(
      this.li.store,
      { platform: 'linkedin', accountId: author, text: plain, contentKey: JSON.stringify(content ?? {}) },
      LI_MAGIC,
    );
    const now = Date.now();
    const id = `urn:li:${hasVideo ? 'ugcPost' : 'share'}:${this.li.newId()}`;
    const post: LiPost = {
      id,
      author,
      commentary: qs(body.commentary),
      visibility: qs(body.visibility),
      lifecycleState: qs(body.lifecycleState),
      content,
      createdAt: now,
      publishedAt: now,
      lastModifiedAt: now,
    };
    await this.li.posts.add(author, post);
    res.status(201).set({ 'x-restli-id': id, 'x-linkedin-id': id }).end();
  }

  /** Comments API: the actor (the post's author or an organisation it administers) comments on a post. */
  @Post('rest/socialActions/:urn/comments')
  async comment(
    @Param('urn') urn: string,
    @Body() body: Q,
    @SandboxAuth(LI_REST) m: LiMember,
    @Res() res: Response,
  ): Promise<void> {
    const actor = this.li.assertOwner(m, body.actor, 'partnerApiSocialActions.CREATE.20240101');
    const post = await this.li.posts.get(urn);
    if (!post) throw liFail(404, `Not Found: ${urn}`, 'NOT_FOUND');
    if (body.object !== undefined && body.object !== urn)
      throw liFail(400, `/object must be the socialActions target ${urn}`, 'ILLEGAL_ARGUMENT');
    const text = (body.message as { text?: unknown } | undefined)?.text;
    if (typeof text !== 'string' || !text.trim())
      throw liFail(422, 'ERROR :: /message/text :: field is required but not found and has no default value\n');
    const refused = commentRefusal('linkedin', text);
    if (refused) throw liFail(422, refused, 'UNPROCESSABLE_ENTITY');
    const id = this.li.newId();
    const activity = `urn:li:activity:${urn.split(':').at(-1)}`;
    const commentUrn = `urn:li:comment:(${activity},${id})`;
    await addOwnComment(this.li.store, 'linkedin', urn, { id: actor, name: m.name }, text, commentUrn);
    const stamp = { actor, time: Date.now() };
    res.status(201).set({ 'x-restli-id': commentUrn }).json({
      actor,
      commentUrn,
      created: stamp,
      lastModified: stamp,
      id,
      message: { text },
      object: urn,
      $URN: commentUrn,
    });
  }

  /** FINDER q=author: the author's posts, newest first. */
  @Get('rest/posts')
  async posts(@Query() q: Q, @SandboxAuth(LI_REST) m: LiMember): Promise<unknown> {
    if (qs(q.q) !== 'author') throw liFail(400, `Invalid finder: ${qs(q.q)}`, 'ILLEGAL_ARGUMENT');
    const author = this.li.assertOwner(m, qs(q.author), 'partnerApiPostsExternal.FINDER-author.20240101');
    const start = Math.max(0, Number(qs(q.start)) || 0);
    const count = Math.min(100, Math.max(1, Number(qs(q.count)) || 10));
    const elements = await this.li.posts.of(author, start, count);
    return { paging: { start, count, links: [], total: await this.li.posts.countOf(author) }, elements };
  }

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

  /** Media referenced by a post must be AVAILABLE and owned by its author. Returns whether it is a video post. */
  private async checkContent(author: string, content: Record<string, unknown> | undefined): Promise<boolean> {
    if (!content) return false;
    const media = content.media as { id?: unknown } | undefined;
    const multi = (content.multiImage as { images?: { id?: unknown }[] } | undefined)?.images;
    const ids = media ? [media.id] : (multi ?? []).map((i) => i.id);
    // A multi-image post holds 2 images or more (one image is `media`), at most LINKEDIN_RULES' max.
    const max = LINKEDIN_RULES.images.max;
    if (multi && (multi.length < 2 || multi.length > max))
      throw liFail(422, `ERROR :: /content/multiImage/images :: array size ${multi.length} is not within 2..${max}\n`);
    let video = false;
    for (const raw of ids) {
      const id = typeof raw === 'string' ? raw : '';
      if (id.startsWith('urn:li:video:')) {
        const v = await this.li.videos.get(id);
        if (!v || v.owner !== author || !v.finalizedAt)
          throw liFail(400, `Video ${id} is not AVAILABLE or not owned by ${author}`, 'INVALID_CONTENT');
        video = true;
        continue;
      }
      const img = await this.li.images.get(id);
      if (!img || img.owner !== author || img.status !== 'AVAILABLE')
        throw liFail(400, `Image ${id || '(none)'} is not AVAILABLE or not owned by ${author}`, 'INVALID_CONTENT');
    }
    if (video && ids.length > 1) throw liFail(422, 'ERROR :: /content :: a post holds one video and no images\n');
    return video;
  }
}

/** The LinkedIn simulator: its login and its API routes. */
export const LINKEDIN_SIMULATOR = {
  controllers: [LoginRoutes(LINKEDIN_LOGIN), LinkedInSandboxController, LinkedInSandboxAnalyticsController],
  providers: [LinkedInSandbox],
};
