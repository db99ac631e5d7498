import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import {
  CreateUploadDto,
  CreateUploadSessionDto,
  MediaUploadDto,
  SignedUrlDto,
  UploadSessionDto,
} from './dto/media.dto';
import { MediaService } from './media.service';
import { UploadSessionsService } from './upload-sessions.service';

const WRITE_ERRORS = ['invalid_request', 'trial_expired', 'idempotency_key_reused', 'idempotency_key_in_use'] as const;

@ApiTags('Media')
@Controller('v1')
export class MediaController {
  constructor(
    private readonly media: MediaService,
    private readonly sessions: UploadSessionsService,
  ) {}

  /**
   * Create a media upload URL.
   *
   * PUT the bytes to `uploadUrl` with `Content-Type: <fileType>` before `expiresAt`, then use
   * `publicUrl` in a post. Accepted: JPEG, PNG, GIF, WebP, MP4, QuickTime; anything else 415.
   */
  @Post('media/upload')
  @HttpCode(200)
  @RequirePermission('media:write', { errors: [...WRITE_ERRORS, 'unsupported_media_type'] })
  createUpload(@CurrentAuth() auth: AuthContext, @Body() dto: CreateUploadDto): Promise<MediaUploadDto> {
    return this.media.createUpload(auth, dto);
  }

  /** Create a media upload URL (older call: `{ signedUrl, publicUrl, key }`). */
  @Post('upload/signed-url')
  @HttpCode(200)
  @RequirePermission('media:write', { errors: [...WRITE_ERRORS, 'unsupported_media_type'] })
  createSignedUrl(@CurrentAuth() auth: AuthContext, @Body() dto: CreateUploadDto): Promise<SignedUrlDto> {
    return this.media.createSignedUrl(auth, dto);
  }

  /**
   * Create a browser upload session.
   *
   * Send a person to `url` (a hosted page, valid for an hour) to pick files; the session's
   * `media` lists them once it is `completed`.
   */
  @Post('media/upload-sessions')
  @RequirePermission('media:write', { errors: [...WRITE_ERRORS] })
  createSession(@CurrentAuth() auth: AuthContext, @Body() dto: CreateUploadSessionDto): Promise<UploadSessionDto> {
    return this.sessions.create(auth, dto);
  }

  /** Get an upload session with its status and uploaded media. */
  @Get('media/upload-sessions/:id')
  @RequirePermission('media:write', { errors: ['not_found'] })
  getSession(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<UploadSessionDto> {
    return this.sessions.get(auth, id);
  }
}
