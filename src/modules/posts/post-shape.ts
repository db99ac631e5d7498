import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { ApiError } from '@/common/errors/api-error';
import { isPlatformName, PLATFORM_NAMES } from '@/modules/networks/platform-name';
import { MAX_FIRST_COMMENT, PublishContentDto } from './dto/create-post.dto';
import type { ContentType, PostContent } from './entities/post.entity';

/**
 * Pure normalisation of the three request shapes of POST /v1/posts (and the content of PUT)
 * into one stored PostContent, the target ids and what the client asked for.
 */

export type RequestShape = 'older' | 'legacy' | 'newer';
/** What the creation asks for: keep a draft, publish now, or publish at scheduledAt. */
export type CreateIntent = 'draft' | 'publish' | 'schedule';

/** Where the client put each part, so validation errors name the field as it was sent. */
export interface FieldPaths {
  /** Prefix of PublishContent fields: 'content.' or '' (legacy flat body). */
  content: string;
  /** The whole text, when it came as a plain string (`content`). */
  text?: string;
  /** Where media came from when not the content object (`mediaUrls`). */
  media?: string;
  /** Prefix of per-platform options: 'platforms.' (newer shape) or the content prefix. */
  options: string;
  /** Where the post's first comment came from when not the content object (newer shape `firstComment`). */
  firstComment?: string;
}

export const STORED_PATHS: FieldPaths = { content: 'content.', options: 'content.' };

export interface NormalisedCreate {
  shape: RequestShape;
  content: PostContent;
  /** null: the older shapes without targetIds publish to every active account of the profile. */
  accountIds: string[] | null;
  /** The field the ids came in, for error messages. */
  accountField: 'accountIds' | 'targetIds';
  intent: CreateIntent;
  /** As sent; parsed (and refused with invalid_scheduled_at) by parseScheduledAt. */
  scheduledAt: unknown;
  /** Newer shape `addToQueue: true`: scheduled at the profile's next free queue slot. */
  addToQueue: boolean;
  paths: FieldPaths;
}

/** The body of a creation as the DTO leaves it (content and legacy fields untyped). */
export interface CreateBody {
  content?: unknown;
  targetIds?: string[];
  saveAsDraft?: boolean;
  scheduledAt?: unknown;
  accountIds?: string[];
  publishNow?: boolean;
  addToQueue?: boolean;
  mediaUrls?: string[];
  platforms?: Record<string, Record<string, unknown>>;
  firstComment?: string;
}

/** PublishContent fields that may also appear at the top level (legacy flat body). */
export const CONTENT_FIELDS = [
  'contentType',
  'message',
  'caption',
  'link',
  'imageUrls',
  'videoUrl',
  'platformCaptions',
  'perAccount',
  ...PLATFORM_NAMES,
] as const;
/** Stored PublishContent fields beyond the legacy flat ones (firstComment may also come at the top level). */
const STORED_FIELDS: readonly string[] = [...CONTENT_FIELDS, 'firstComment'];
const NEWER_FIELDS = ['accountIds', 'publishNow', 'addToQueue', 'mediaUrls', 'platforms'] as const;
const OLDER_FIELDS = ['targetIds', 'saveAsDraft'] as const;

const VIDEO_EXTENSION = /\.(mp4|m4v|mov|qt|webm|avi|mkv|mpe?g)$/i;
const IMAGE_EXTENSION = /\.(jpe?g|png|gif|webp|heic|bmp|tiff?)$/i;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function defined(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function inferContentType(c: Pick<PostContent, 'videoUrl' | 'imageUrls'>): ContentType {
  if (c.videoUrl) return 'video';
  if (c.imageUrls && c.imageUrls.length > 0) return 'image';
  return 'text';
}

function firstError(errors: ValidationError[], prefix: string): { field: string; message: string } | undefined {
  for (const e of errors) {
    const field = `${prefix}${e.property}`;
    const message = e.constraints ? Object.values(e.constraints)[0] : undefined;
    if (message) {
      // class-validator messages start with the property name ("imageUrls must …"); name the full path.
      const text = message.startsWith(e.property)
        ? `${field}${message.slice(e.property.length)}`
        : message.replace(`property ${e.property} `, `${field} `);
      return { field, message: text };
    }
    const nested = firstError(e.children ?? [], `${field}.`);
    if (nested) return nested;
  }
  return undefined;
}

/**
 * Checks a PublishContent object (types, URLs, platform names) and returns it as stored content
 * fields. `null` values are kept (PUT clears those fields); creation drops them.
 */
export function checkContentObject(raw: Record<string, unknown>, prefix: string): Record<string, unknown> {
  const errors = validateSync(plainToInstance(PublishContentDto, raw), { whitelist: true, forbidNonWhitelisted: true });
  const first = firstError(errors, prefix);
  if (first) throw new ApiError('invalid_request', first.message, { field: first.field });
  if (isObject(raw.platformCaptions)) {
    for (const [platform, caption] of Object.entries(raw.platformCaptions)) {
      if (!isPlatformName(platform))
        throw ApiError.invalid(
          `${prefix}platformCaptions.${platform}`,
          `${prefix}platformCaptions.${platform} is not a platform; use ${PLATFORM_NAMES.join(', ')}.`,
        );
      if (typeof caption !== 'string')
        throw ApiError.invalid(
          `${prefix}platformCaptions.${platform}`,
          `${prefix}platformCaptions.${platform} must be a string.`,
        );
    }
  }
  if (isObject(raw.perAccount)) {
    for (const [accountId, overrides] of Object.entries(raw.perAccount)) {
      if (!isObject(overrides))
        throw ApiError.invalid(
          `${prefix}perAccount.${accountId}`,
          `${prefix}perAccount.${accountId} must be an object.`,
        );
      const comment = overrides.firstComment;
      const at = `${prefix}perAccount.${accountId}.firstComment`;
      if (comment !== undefined && comment !== null && typeof comment !== 'string')
        throw ApiError.invalid(at, `${at} must be a string (null or "" posts no first comment for this account).`);
      if (typeof comment === 'string' && comment.length > MAX_FIRST_COMMENT)
        throw ApiError.invalid(at, `${at} must be shorter than or equal to ${MAX_FIRST_COMMENT} characters.`);
    }
  }
  return raw;
}

function checkPlatformsObject(raw: Record<string, unknown>): Record<string, Record<string, unknown>> {
  for (const [platform, options] of Object.entries(raw)) {
    if (!isPlatformName(platform))
      throw ApiError.invalid(
        `platforms.${platform}`,
        `platforms.${platform} is not a platform; use ${PLATFORM_NAMES.join(', ')}.`,
      );
    if (!isObject(options)) throw ApiError.invalid(`platforms.${platform}`, `platforms.${platform} must be an object.`);
  }
  return raw as Record<string, Record<string, unknown>>;
}

/** Stored content from checked PublishContent fields (absent and null fields left out). */
export function toStoredContent(
  fields: Record<string, unknown>,
): Omit<PostContent, 'contentType'> & { contentType?: ContentType } {
  const out: Record<string, unknown> = {};
  const platforms: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!defined(value)) continue;
    if (isPlatformName(key)) platforms[key] = value as Record<string, unknown>;
    else if (STORED_FIELDS.includes(key)) out[key] = value;
  }
  if (Object.keys(platforms).length > 0) out.platforms = platforms;
  return out;
}

/** Completes content: contentType inferred when absent, and the generic media/text rules. */
export function finishContent(
  content: Omit<PostContent, 'contentType'> & { contentType?: ContentType },
  paths: FieldPaths,
): PostContent {
  const done: PostContent = { ...content, contentType: content.contentType ?? inferContentType(content) };
  const video = paths.media ?? `${paths.content}videoUrl`;
  const images = paths.media ?? `${paths.content}imageUrls`;
  const text = paths.text ?? `${paths.content}message`;
  if (done.contentType === 'video' && !done.videoUrl)
    throw ApiError.invalid(video, `${video} must hold a video when contentType is video.`);
  if (done.contentType === 'image' && !done.imageUrls?.length)
    throw ApiError.invalid(images, `${images} must hold at least one image when contentType is image.`);
  const hasText = [done.message, done.caption, ...Object.values(done.platformCaptions ?? {})].some(
    (t) => typeof t === 'string' && t.trim() !== '',
  );
  if (!hasText && !done.videoUrl && !done.imageUrls?.length) {
    throw ApiError.invalid(text, `The post is empty: give ${text}, ${paths.content}caption, ${images} or ${video}.`);
  }
  return done;
}

/** Splits `mediaUrls` into one video and images; an extension-less URL follows contentType. */
export function splitMediaUrls(urls: string[], contentType: unknown): { videoUrl?: string; imageUrls: string[] } {
  const videos: string[] = [];
  const images: string[] = [];
  for (const url of urls) {
    const path = url.split(/[?#]/)[0] ?? url;
    if (VIDEO_EXTENSION.test(path) || (!IMAGE_EXTENSION.test(path) && contentType === 'video')) videos.push(url);
    else images.push(url);
  }
  if (videos.length > 1) throw ApiError.invalid('mediaUrls', 'mediaUrls may hold at most one video.');
  return { ...(videos[0] ? { videoUrl: videos[0] } : {}), imageUrls: images };
}

function field(body: CreateBody, key: string): unknown {
  return (body as Record<string, unknown>)[key];
}

export function detectShape(body: CreateBody): RequestShape {
  const newer: string[] = NEWER_FIELDS.filter((k) => body[k] !== undefined);
  if (typeof body.content === 'string') newer.push('content');
  const older = OLDER_FIELDS.filter((k) => body[k] !== undefined);
  if (newer.length > 0 && older.length > 0) {
    throw ApiError.invalid(
      older[0],
      `${older[0]} belongs to the older request shape and cannot be combined with ${newer[0]} (newer shape); use accountIds and publishNow/scheduledAt.`,
    );
  }
  if (newer.length > 0) return 'newer';
  return body.content !== undefined ? 'older' : 'legacy';
}

/** The one entry point for POST /v1/posts and POST /v1/posts/validate bodies. */
export function normaliseCreate(body: CreateBody): NormalisedCreate {
  const shape = detectShape(body);
  const flat = CONTENT_FIELDS.filter((k) => field(body, k) !== undefined);
  if (body.content !== undefined && body.content !== null && flat.length > 0) {
    throw ApiError.invalid(flat[0], `${flat[0]} must be inside content when content is given.`);
  }
  const paths: FieldPaths = { content: 'content.', options: shape === 'newer' ? 'platforms.' : 'content.' };
  let fields: Record<string, unknown>;
  if (typeof body.content === 'string') {
    fields = { message: body.content };
    paths.text = 'content';
  } else if (isObject(body.content)) {
    fields = checkContentObject(body.content, 'content.');
  } else if (body.content === undefined || body.content === null) {
    if (flat.length === 0) throw ApiError.invalid('content', 'content is required.');
    paths.content = '';
    if (shape !== 'newer') paths.options = '';
    fields = checkContentObject(Object.fromEntries(flat.map((k) => [k, field(body, k)])), '');
  } else {
    throw ApiError.invalid('content', 'content must be a string or a PublishContent object.');
  }
  const content = toStoredContent(fields);
  if (body.mediaUrls?.length) {
    const media = splitMediaUrls(body.mediaUrls, content.contentType);
    if (media.videoUrl && content.videoUrl)
      throw ApiError.invalid(
        'mediaUrls',
        'mediaUrls holds a video but content.videoUrl is set too; a post has one video.',
      );
    content.imageUrls = [...(content.imageUrls ?? []), ...media.imageUrls];
    if (content.imageUrls.length === 0) delete content.imageUrls;
    if (media.videoUrl) content.videoUrl = media.videoUrl;
    paths.media = 'mediaUrls';
  }
  if (body.firstComment !== undefined) {
    if (content.firstComment !== undefined)
      throw ApiError.invalid(
        'firstComment',
        'firstComment is given twice (top level and content.firstComment); give one of them.',
      );
    content.firstComment = body.firstComment;
    paths.firstComment = 'firstComment';
  }
  if (body.platforms !== undefined) {
    const options = checkPlatformsObject(body.platforms);
    const merged = { ...(content.platforms ?? {}) };
    for (const [platform, value] of Object.entries(options))
      merged[platform] = { ...(merged[platform] ?? {}), ...value };
    if (Object.keys(merged).length > 0) content.platforms = merged;
  }
  return {
    shape,
    content: finishContent(content, paths),
    accountIds: shape === 'newer' ? requireIds(body.accountIds, 'accountIds') : (body.targetIds ?? null),
    accountField: shape === 'newer' ? 'accountIds' : 'targetIds',
    intent: intentOf(shape, body),
    scheduledAt: body.scheduledAt ?? null,
    addToQueue: shape === 'newer' && body.addToQueue === true,
    paths,
  };
}

function requireIds(ids: string[] | undefined, field: string): string[] {
  if (!ids) throw ApiError.invalid(field, `${field} is required: the connected accounts to publish to.`);
  return ids;
}

function intentOf(shape: RequestShape, body: CreateBody): CreateIntent {
  const scheduled = defined(body.scheduledAt);
  if (shape === 'newer') {
    if (body.addToQueue === true && (body.publishNow === true || scheduled))
      throw ApiError.invalid(
        'addToQueue',
        'Give one of addToQueue, publishNow or scheduledAt: addToQueue schedules at the next free queue slot.',
      );
    if (body.addToQueue === true) return 'schedule';
    if (body.publishNow === true && scheduled)
      throw ApiError.invalid('publishNow', 'Give either publishNow or scheduledAt, not both.');
    if (body.publishNow === true) return 'publish';
    return scheduled ? 'schedule' : 'draft';
  }
  // Older shapes: saveAsDraft defaults to true; false publishes at scheduledAt, or now without one.
  if (body.saveAsDraft ?? true) return 'draft';
  return scheduled ? 'schedule' : 'publish';
}

/** PUT content: a patch of PublishContent fields (null clears one) or the new text as a string. */
export function checkContentPatch(raw: unknown): Record<string, unknown> {
  if (typeof raw === 'string') return { message: raw };
  if (!isObject(raw))
    throw ApiError.invalid(
      'content',
      'content must be an object of the fields to change (or the new text as a string).',
    );
  return checkContentObject(raw, 'content.');
}

/** Applies a PUT patch: undefined keeps a field, null clears it; contentType is re-inferred when media change. */
export function mergeContent(current: PostContent, patch: Record<string, unknown>): PostContent {
  const next: Record<string, unknown> = { ...current, platforms: { ...(current.platforms ?? {}) } };
  const platforms = next.platforms as Record<string, Record<string, unknown>>;
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (isPlatformName(key)) {
      if (value === null) delete platforms[key];
      else platforms[key] = value as Record<string, unknown>;
    } else if (value === null) {
      delete next[key];
    } else {
      next[key] = value;
    }
  }
  if (Object.keys(platforms).length === 0) delete next.platforms;
  const mediaChanged = patch.imageUrls !== undefined || patch.videoUrl !== undefined;
  if (patch.contentType === undefined && mediaChanged) delete next.contentType;
  if (patch.contentType === null) delete next.contentType;
  return finishContent(next, STORED_PATHS);
}

/** The stored content as the API shows it: PublishContent, platform options at the top level. */
export function toPublishContent(content: PostContent): Record<string, unknown> {
  const { platforms, ...rest } = content;
  return {
    contentType: rest.contentType,
    message: rest.message ?? null,
    caption: rest.caption ?? null,
    link: rest.link ?? null,
    imageUrls: rest.imageUrls ?? [],
    videoUrl: rest.videoUrl ?? null,
    platformCaptions: rest.platformCaptions ?? {},
    perAccount: rest.perAccount ?? {},
    firstComment: rest.firstComment ?? null,
    ...(platforms ?? {}),
  };
}
