import { ApiProperty } from '@nestjs/swagger';
import { ActorDto } from '@/modules/audit/dto/audit.dto';
import { type EveryPlatform, PLATFORM_NAMES, type PlatformsMissingFrom } from '@/modules/networks/platform-name';
import { CONTENT_TYPES, POST_STATES } from '../entities/post.entity';

const TARGET_STATUSES = ['pending', 'publishing', 'waiting_on_network', 'success', 'failed'];
const ERROR_CATEGORIES = [
  'auth_expired',
  'invalid_content',
  'media_rejected',
  'network_rate_limited',
  'network_error',
  'unknown_outcome',
  'policy_violation',
];

/** The first comment of one target (see PublishContent `firstComment`). */
export class FirstCommentResultDto {
  /**
   * `pending`: waiting for the target to publish (or being posted); `success`: posted;
   * `failed`: not posted (`error` says why) — it is never sent twice and never fails the target.
   */
  @ApiProperty({ enum: ['pending', 'success', 'failed'] })
  status: string;
  /** The network's id of the comment. */
  id: string | null;
  error: string | null;
}

/** One account a post publishes to, with its result. */
export class PostTargetDto {
  id: string;
  accountId: string;
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: string;
  /** Page name at the time the post was created. */
  pageName: string;
  /**
   * `waiting_on_network`: the network took the item and is still processing it (moderation,
   * transcoding, a media container); it is checked again with back-off for up to 24 hours.
   */
  @ApiProperty({ enum: TARGET_STATUSES })
  status: string;
  /** The network's id of the published item. */
  externalId: string | null;
  /** Link to the published item. */
  url: string | null;
  /** The network's message when this target failed. */
  error: string | null;
  @ApiProperty({ enum: ERROR_CATEGORIES, nullable: true })
  errorCategory: string | null;
  publishedAt: string | null;
  /** null when no first comment was requested for this account. */
  firstComment: FirstCommentResultDto | null;
}

export class PostDto {
  id: string;
  @ApiProperty({ enum: POST_STATES })
  state: string;
  @ApiProperty({ enum: CONTENT_TYPES })
  contentType: string;
  caption: string | null;
  message: string | null;
  /** UTC; null when unscheduled. */
  scheduledAt: string | null;
  createdAt: string;
  targets: PostTargetDto[];
}

/** The full PublishContent, platform options and per-account overrides included. */
export class PostContentDto {
  @ApiProperty({ enum: CONTENT_TYPES })
  contentType: string;
  message: string | null;
  caption: string | null;
  link: string | null;
  imageUrls: string[];
  videoUrl: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  platformCaptions: Record<string, string>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'object' } })
  perAccount: Record<string, Record<string, unknown>>;
  /** Posted by each account once its item is published (perAccount[id].firstComment overrides it). */
  firstComment: string | null;
  @ApiProperty({ required: false, type: Object, additionalProperties: true })
  facebook?: Record<string, unknown>;
  @ApiProperty({ required: false, type: Object, additionalProperties: true })
  instagram?: Record<string, unknown>;
  @ApiProperty({ required: false, type: Object, additionalProperties: true })
  linkedin?: Record<string, unknown>;
  @ApiProperty({ required: false, type: Object, additionalProperties: true })
  tiktok?: Record<string, unknown>;
  @ApiProperty({ required: false, type: Object, additionalProperties: true })
  youtube?: Record<string, unknown>;
  @ApiProperty({ required: false, type: Object, additionalProperties: true })
  threads?: Record<string, unknown>;
}

/** Compiles only while PostContentDto documents every network's options (as PublishContentDto takes them). */
export type PostContentNetworkFields = EveryPlatform<PlatformsMissingFrom<PostContentDto>>;

export class PostDetailDto extends PostDto {
  content: PostContentDto;
}

export class PostResponseDto {
  post: PostDetailDto;
}

export class CreatedPostDto {
  id: string;
  @ApiProperty({ enum: POST_STATES })
  state: string;
  post: PostDto;
}

export class PostListDto {
  posts: PostDto[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

export class PostHistoryEntryDto {
  /** null on the first entry (creation). */
  from: string | null;
  to: string;
  at: string;
  reason: string | null;
  actor: ActorDto;
}

export class PostHistoryDto {
  history: PostHistoryEntryDto[];
}

export class PostStateDto {
  id: string;
  @ApiProperty({ enum: POST_STATES })
  state: string;
}

/** PUT, publish, approve and reject. */
export class PostActionResultDto {
  message: string;
  post: PostStateDto;
}

export class CancelledPostDto {
  message: string;
  id: string;
  @ApiProperty({ enum: ['cancelled'] })
  state: 'cancelled';
}

export class PostStatusDto {
  id: string;
  /** The post's state (named `status` here, as in webhook payloads). */
  @ApiProperty({ enum: POST_STATES })
  status: string;
}

export class RetriedPostDto {
  post: PostStatusDto;
}

export class PostValidationErrorDto {
  /** The target account (null for rules of the whole post, such as blocked terms). */
  accountId: string | null;
  platform: string | null;
  /** The request field at fault, e.g. content.videoUrl. */
  field: string;
  /**
   * Set on the error of a target that would exceed its network's publishing cap
   * (GET /v1/accounts/{id}/limits): `daily_post_limit`, the spec's code for a cap reached.
   * The message names the account, the limit and when it resets.
   */
  @ApiProperty({ required: false, enum: ['daily_post_limit'] })
  code?: string;
  message: string;
}

export class PostValidationDto {
  valid: boolean;
  errors: PostValidationErrorDto[];
}

/** One post created by POST /v1/posts/bulk. */
export class BulkCreatedPostDto {
  @ApiProperty({ example: 'b3c1f6a2-3a4d-4e0b-9d7e-1f2a3b4c5d6e' })
  id: string;
  @ApiProperty({ enum: POST_STATES, example: 'scheduled' })
  state: string;
}

/** 201 of POST /v1/posts/bulk: the created posts in input order. */
export class BulkCreatedPostsDto {
  posts: BulkCreatedPostDto[];
}

/** A check one post of a bulk request fails. */
export class BulkPostErrorDto {
  /** The error code a creation of this post alone would answer. */
  @ApiProperty({ example: 'invalid_request' })
  code: string;
  /** The field of the post at fault, e.g. content or accountIds. */
  @ApiProperty({ example: 'content' })
  field: string;
  @ApiProperty({ example: 'content: Instagram needs an image or a video.' })
  message: string;
  /** The target account, for a network's own rule. */
  @ApiProperty({ required: false, example: 'acc_2' })
  accountId?: string;
}

/** The dry-run result of one post of a bulk request. */
export class BulkPostResultDto {
  /** Position in `posts`, from 0. */
  @ApiProperty({ example: 1 })
  index: number;
  valid: boolean;
  errors: BulkPostErrorDto[];
}

/** 200 of POST /v1/posts/bulk with `dryRun: true`: nothing was created. */
export class BulkValidationDto {
  /** true when every post would be created. */
  valid: boolean;
  results: BulkPostResultDto[];
}
