import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsNotEmpty, IsOptional, IsString, IsUrl, Max, MaxLength, Min } from 'class-validator';
import { ProfileBodyDto } from '@/common/pagination/pagination';
import { ACCEPTED_TYPE_LIST } from '../media-types';
import type { UploadSessionStatus } from '../entities/upload-session.entity';

export const MAX_SESSION_FILES = 50;

export class CreateUploadDto extends ProfileBodyDto {
  /** The file's name, kept for your records (the storage key does not use it). */
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  fileName: string;

  /** MIME type of the file; the upload must be sent with exactly this `Content-Type`. */
  @ApiProperty({
    example: 'image/png',
    description: `One of ${ACCEPTED_TYPE_LIST.join(', ')}; anything else answers 415 on /v1/media/upload.`,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  fileType: string;
}

/** `POST /v1/media/upload`. */
export class MediaUploadDto {
  /** PUT the file's bytes here with the `Content-Type` given as `fileType`. */
  uploadUrl: string;
  /** Same as `uploadUrl` (kept for older clients). */
  signedUrl: string;
  /** Where the file is served once uploaded: put it in `imageUrls`, `videoUrl` or `mediaUrls`. */
  publicUrl: string;
  /** Storage key of the file. */
  key: string;
  /** When `uploadUrl` stops working. */
  expiresAt: string;
}

/** `POST /v1/upload/signed-url` (older shape). */
export class SignedUrlDto {
  signedUrl: string;
  publicUrl: string;
  key: string;
}

/** Query of a local-driver upload URL (made by the service, not by clients). */
export class SignedUploadQueryDto {
  @IsString()
  expires: string;

  @IsString()
  sig: string;
}

export class UploadedFileDto {
  key: string;
  publicUrl: string;
  size: number;
}

export class CreateUploadSessionDto extends ProfileBodyDto {
  /** Where to send the person when done, with `?session=<id>&status=completed`. Default: a hosted "done" page. */
  @IsOptional()
  @IsUrl(
    { protocols: ['http', 'https'], require_protocol: true, require_tld: false },
    { message: 'redirectUrl must be an http(s) URL' },
  )
  @MaxLength(2000)
  redirectUrl?: string;

  /** How many files the person may upload (default 10). */
  @ApiProperty({ required: false, minimum: 1, maximum: MAX_SESSION_FILES, default: 10 })
  @IsOptional()
  @IsInt({ message: 'maxFiles must be an integer' })
  @Min(1, { message: 'maxFiles must be at least 1' })
  @Max(MAX_SESSION_FILES, { message: `maxFiles must be at most ${MAX_SESSION_FILES}` })
  maxFiles?: number;
}

export class SessionMediaDto {
  key: string;
  publicUrl: string;
  fileType: string;
  fileName: string;
  size: number | null;
}

export class UploadSessionDto {
  id: string;
  profileId: string;
  /** `pending` until the person finishes; `expired` an hour after creation if never finished. */
  @ApiProperty({ enum: ['pending', 'completed', 'expired'] })
  status: UploadSessionStatus;
  /** The hosted page to send the person to (only while `pending`). */
  url: string | null;
  redirectUrl: string | null;
  maxFiles: number;
  expiresAt: string;
  createdAt: string;
  completedAt: string | null;
  /** Files uploaded through the session (when `completed`). */
  media: SessionMediaDto[];
}

/** Bodies the hosted page posts back (authenticated by the page token, not a key). */
export class SessionPageTokenDto {
  @IsString()
  @IsNotEmpty()
  token: string;
}

export class SessionPageFileDto extends SessionPageTokenDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  fileName: string;

  @Transform(({ value }: { value: unknown }) => (value === '' ? 'application/octet-stream' : value))
  @IsString()
  @MaxLength(255)
  fileType: string;
}

export class SessionPageRemoveDto extends SessionPageTokenDto {
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  key: string;
}

export class SessionPageFileResultDto {
  uploadUrl: string;
  publicUrl: string;
  key: string;
  fileType: string;
  expiresAt: string;
}

export class SessionPageCompleteDto {
  status: 'completed';
  /** Where the page sends the person next, or null to show its own "done" message. */
  redirectUrl: string | null;
  media: SessionMediaDto[];
}
