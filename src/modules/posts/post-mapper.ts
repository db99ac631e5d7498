import type {
  FirstCommentResultDto,
  PostContentDto,
  PostDetailDto,
  PostDto,
  PostHistoryEntryDto,
  PostTargetDto,
} from './dto/post-response.dto';
import type { PostHistoryEntity } from './entities/post-history.entity';
import type { PostTargetEntity } from './entities/post-target.entity';
import type { PostContent, PostEntity } from './entities/post.entity';
import { toPublishContent } from './post-shape';
import { composeFirstComment } from './publishing/compose-content';

/** The post's fields its DTO is made of (toPostDto): all the list reads of a post (posts.repository.ts). */
export const POST_DTO_FIELDS = [
  'id',
  'state',
  'contentType',
  'caption',
  'message',
  'content',
  'scheduledAt',
  'createdAt',
] as const;
/** The target's fields its DTO is made of (toTargetDto). */
export const TARGET_DTO_FIELDS = [
  'id',
  'accountId',
  'platform',
  'pageName',
  'status',
  'externalId',
  'externalUrl',
  'error',
  'errorCategory',
  'publishedAt',
  'firstCommentStatus',
  'firstCommentId',
  'firstCommentError',
] as const;
type PostFields = Pick<PostEntity, (typeof POST_DTO_FIELDS)[number]>;
type TargetFields = Pick<PostTargetEntity, (typeof TARGET_DTO_FIELDS)[number]>;

/** A target's first comment: its result once settled, pending while requested, null when none was. */
export function toFirstCommentDto(t: TargetFields, content: PostContent): FirstCommentResultDto | null {
  if (t.firstCommentStatus === 'success' || t.firstCommentStatus === 'failed')
    return { status: t.firstCommentStatus, id: t.firstCommentId, error: t.firstCommentError };
  if (t.firstCommentStatus === 'attempting' || composeFirstComment(content, t) !== null)
    return { status: 'pending', id: null, error: null };
  return null;
}

export function toTargetDto(t: TargetFields, content: PostContent): PostTargetDto {
  return {
    id: t.id,
    accountId: t.accountId,
    platform: t.platform,
    pageName: t.pageName,
    status: t.status,
    externalId: t.externalId,
    url: t.externalUrl,
    error: t.error,
    errorCategory: t.errorCategory,
    publishedAt: t.publishedAt?.toISOString() ?? null,
    firstComment: toFirstCommentDto(t, content),
  };
}

export function toPostDto(p: PostFields, targets: TargetFields[]): PostDto {
  return {
    id: p.id,
    state: p.state,
    contentType: p.contentType,
    caption: p.caption,
    message: p.message,
    scheduledAt: p.scheduledAt?.toISOString() ?? null,
    createdAt: p.createdAt.toISOString(),
    targets: targets.map((t) => toTargetDto(t, p.content)),
  };
}

export function toPostDetailDto(p: PostEntity, targets: PostTargetEntity[]): PostDetailDto {
  return { ...toPostDto(p, targets), content: toPublishContent(p.content) as unknown as PostContentDto };
}

export function toHistoryDto(h: PostHistoryEntity): PostHistoryEntryDto {
  return { from: h.from, to: h.to, at: h.at.toISOString(), reason: h.reason, actor: h.actor };
}
