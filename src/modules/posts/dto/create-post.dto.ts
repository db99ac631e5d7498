import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
} from 'class-validator';
import { ProfileBodyDto } from '@/common/pagination/pagination';
import type { EveryPlatform, PlatformsMissingFrom } from '@/modules/networks/platform-name';
import { CONTENT_TYPES, ContentType } from '../entities/post.entity';

/** Media and links are public http(s) URLs; hosts without a TLD (localhost, the sandbox) are fine. */
export const URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const MAX_TEXT = 100_000;
const MAX_TARGETS = 100;
/** A first comment is a comment, not a post: the shortest network cap (Threads' 500) bounds it. */
export const MAX_FIRST_COMMENT = 500;
export const MAX_BULK_POSTS = 100;

/** The content of a post (older shape `content`, PUT `content`, newer shape `content` as an object). */
export class PublishContentDto {
  /** Inferred when absent: videoUrl → video, imageUrls → image, else text. */
  @ApiPropertyOptional({ enum: CONTENT_TYPES })
  @IsOptional()
  @IsIn(CONTENT_TYPES, { message: `contentType must be one of ${CONTENT_TYPES.join(', ')}` })
  contentType?: ContentType;

  /** Body text. */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  message?: string;

  /** Caption (media posts). */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  caption?: string;

  /** A link to attach. */
  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: 'link must be an http(s) URL' })
  link?: string;

  /** Public image URLs. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(35)
  @IsUrl(URL_OPTIONS, { each: true, message: 'imageUrls must contain http(s) URLs' })
  imageUrls?: string[];

  /** Public video URL. */
  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: 'videoUrl must be an http(s) URL' })
  videoUrl?: string;

  /** Caption per platform name, e.g. { "linkedin": "…" }. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  platformCaptions?: Record<string, string>;

  /**
   * Overrides per account id: `caption`/`message` replace the text, `firstComment` replaces the
   * post's first comment for that account (null or "" posts none there), other keys are platform options.
   */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'object' } })
  @IsOptional()
  @IsObject()
  perAccount?: Record<string, Record<string, unknown>>;

  /**
   * A comment the account posts on its own item right after it publishes (Facebook, Instagram,
   * LinkedIn, YouTube; a reply on Threads). A target on a network without comments (TikTok) is
   * a validation error naming the account. A failed comment never fails the target.
   */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_FIRST_COMMENT)
  firstComment?: string;

  /** Facebook options. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  facebook?: Record<string, unknown>;

  /** Instagram options. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  instagram?: Record<string, unknown>;

  /** LinkedIn options. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  linkedin?: Record<string, unknown>;

  /** TikTok options (e.g. privacyLevel). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  tiktok?: Record<string, unknown>;

  /** YouTube options (e.g. title, privacyStatus). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  youtube?: Record<string, unknown>;

  /** Threads options. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  threads?: Record<string, unknown>;
}

/**
 * One body, three shapes (see post-shape.ts):
 * - older: `content` object + `targetIds`, `saveAsDraft` (default true), `scheduledAt`;
 * - legacy flat: the content fields at the top level, plus the older fields;
 * - newer: `content` (string or object), `accountIds`, `publishNow`, `scheduledAt`, `mediaUrls`, `platforms`.
 */
@ApiExtraModels(PublishContentDto)
export class CreatePostDto extends ProfileBodyDto {
  /** The post: a PublishContent object, or (newer shape) its text as a plain string. */
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { $ref: getSchemaPath(PublishContentDto) }] })
  @IsOptional()
  content?: unknown;

  /** Older shape: account ids to publish to; omitted = every active account of the profile. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'targetIds must contain at least one account id' })
  @ArrayMaxSize(MAX_TARGETS)
  @IsString({ each: true, message: 'targetIds must contain account ids' })
  targetIds?: string[];

  /** Older shape: true (default) saves a draft; false schedules (with scheduledAt) or publishes now. */
  @IsOptional()
  @IsBoolean()
  saveAsDraft?: boolean;

  /** ISO 8601 date-time in the future (any offset; answered in UTC). */
  @ApiPropertyOptional({ type: 'string', format: 'date-time' })
  @IsOptional()
  scheduledAt?: unknown;

  /** Newer shape: account ids to publish to (required in that shape). */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'accountIds must contain at least one account id' })
  @ArrayMaxSize(MAX_TARGETS)
  @IsString({ each: true, message: 'accountIds must contain account ids' })
  accountIds?: string[];

  /** Newer shape: publish at once. Neither publishNow nor scheduledAt saves a draft; both is an error. */
  @IsOptional()
  @IsBoolean()
  publishNow?: boolean;

  /**
   * Newer shape: schedule at the profile's next free posting-queue slot (GET /v1/queue/next-slots),
   * instead of publishNow or scheduledAt. 400 invalid_request when the profile has no slots.
   */
  @ApiPropertyOptional({ example: true })
  @IsOptional()
  @IsBoolean()
  addToQueue?: boolean;

  /** Newer shape: the post's first comment (as `content.firstComment`; give one of the two). */
  @IsOptional()
  @IsString()
  @MaxLength(MAX_FIRST_COMMENT)
  firstComment?: string;

  /** Newer shape: public media URLs (videos recognised by extension, the rest are images). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(35)
  @IsUrl(URL_OPTIONS, { each: true, message: 'mediaUrls must contain http(s) URLs' })
  mediaUrls?: string[];

  /** Newer shape: per-platform options keyed by platform name, e.g. { "youtube": { "title": "…" } }. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'object' } })
  @IsOptional()
  @IsObject()
  platforms?: Record<string, Record<string, unknown>>;

  // Legacy flat body: PublishContent fields at the top level (validated like `content`).
  /** Legacy flat body (deprecated): use content.contentType. */
  @ApiPropertyOptional({ enum: CONTENT_TYPES, deprecated: true })
  @IsOptional()
  contentType?: unknown;

  /** Legacy flat body (deprecated): use content.message. */
  @ApiPropertyOptional({ type: 'string', deprecated: true })
  @IsOptional()
  message?: unknown;

  /** Legacy flat body (deprecated): use content.caption. */
  @ApiPropertyOptional({ type: 'string', deprecated: true })
  @IsOptional()
  caption?: unknown;

  /** Legacy flat body (deprecated): use content.link. */
  @ApiPropertyOptional({ type: 'string', deprecated: true })
  @IsOptional()
  link?: unknown;

  /** Legacy flat body (deprecated): use content.imageUrls. */
  @ApiPropertyOptional({ type: [String], deprecated: true })
  @IsOptional()
  imageUrls?: unknown;

  /** Legacy flat body (deprecated): use content.videoUrl. */
  @ApiPropertyOptional({ type: 'string', deprecated: true })
  @IsOptional()
  videoUrl?: unknown;

  /** Legacy flat body (deprecated): use content.platformCaptions. */
  @ApiPropertyOptional({ type: 'object', deprecated: true, additionalProperties: { type: 'string' } })
  @IsOptional()
  platformCaptions?: unknown;

  /** Legacy flat body (deprecated): use content.perAccount. */
  @ApiPropertyOptional({ type: 'object', deprecated: true, additionalProperties: true })
  @IsOptional()
  perAccount?: unknown;

  /** Legacy flat body (deprecated): use content.facebook. */
  @ApiPropertyOptional({ type: 'object', deprecated: true, additionalProperties: true })
  @IsOptional()
  facebook?: unknown;

  /** Legacy flat body (deprecated): use content.instagram. */
  @ApiPropertyOptional({ type: 'object', deprecated: true, additionalProperties: true })
  @IsOptional()
  instagram?: unknown;

  /** Legacy flat body (deprecated): use content.linkedin. */
  @ApiPropertyOptional({ type: 'object', deprecated: true, additionalProperties: true })
  @IsOptional()
  linkedin?: unknown;

  /** Legacy flat body (deprecated): use content.tiktok. */
  @ApiPropertyOptional({ type: 'object', deprecated: true, additionalProperties: true })
  @IsOptional()
  tiktok?: unknown;

  /** Legacy flat body (deprecated): use content.youtube. */
  @ApiPropertyOptional({ type: 'object', deprecated: true, additionalProperties: true })
  @IsOptional()
  youtube?: unknown;

  /** Legacy flat body (deprecated): use content.threads. */
  @ApiPropertyOptional({ type: 'object', deprecated: true, additionalProperties: true })
  @IsOptional()
  threads?: unknown;
}

/**
 * These compile only while every network (a key of NETWORKS) has its options field in
 * PublishContentDto and in the legacy flat body: without one, `content.<network>` would be a 400
 * (docs/architecture.md, adding a network).
 */
export type PublishContentNetworkFields = EveryPlatform<PlatformsMissingFrom<PublishContentDto>>;
export type CreatePostNetworkFields = EveryPlatform<PlatformsMissingFrom<CreatePostDto>>;

/** Same body as a creation; nothing is stored. */
export class ValidatePostDto extends CreatePostDto {}

/** PUT /v1/posts/{id}: only the given fields change; `null` clears a content field. */
@ApiExtraModels(PublishContentDto)
export class UpdatePostDto extends ProfileBodyDto {
  /** Content fields to change (or the new text as a plain string). */
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { $ref: getSchemaPath(PublishContentDto) }] })
  @IsOptional()
  content?: unknown;

  /** New schedule time; on a scheduled post this reschedules it. null clears it on a draft. */
  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true })
  @IsOptional()
  scheduledAt?: unknown;

  /** false on a draft with a scheduledAt schedules it. */
  @IsOptional()
  @IsBoolean()
  saveAsDraft?: boolean;
}

export class RejectPostDto extends ProfileBodyDto {
  /** Why the post was rejected (kept in its history and sent with approval.rejected). */
  @ApiProperty({ required: false, maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  reason?: string;
}

/** POST /v1/posts/bulk: up to 100 newer-shape posts for the profile, created all or nothing. */
@ApiExtraModels(CreatePostDto)
export class BulkCreatePostsDto extends ProfileBodyDto {
  /** The posts, each a newer-shape body of POST /v1/posts (without profileId). */
  @ApiProperty({
    type: 'array',
    items: { $ref: getSchemaPath(CreatePostDto) },
    minItems: 1,
    maxItems: 100,
    example: [
      { content: 'Monday tips', accountIds: ['acc_1'], scheduledAt: '2030-01-06T09:00:00Z' },
      { content: 'Out now!', accountIds: ['acc_1', 'acc_2'], publishNow: true },
    ],
  })
  @IsArray()
  @ArrayMinSize(1, { message: 'posts must contain at least one post' })
  @ArrayMaxSize(MAX_BULK_POSTS, { message: `posts must contain at most ${MAX_BULK_POSTS} posts` })
  @IsObject({ each: true, message: 'posts must contain post objects' })
  posts!: Record<string, unknown>[];

  /** true: run every check of a real creation and create nothing (answers 200 with per-post results). */
  @ApiPropertyOptional({ default: false, example: true })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;
}
