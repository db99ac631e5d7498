import type {
  PostContentDto,
  PostDetailDto,
  PostDto,
  PostHistoryEntryDto,
  PostTargetDto,
} from './dto/post-response.dto';
import type { PostHistoryEntity } from './entities/post-history.entity';
import type { PostTargetEntity } from './entities/post-target.entity';
import type { PostEntity } from './entities/post.entity';
import { toPublishContent } from './post-shape';

export function toTargetDto(t: PostTargetEntity): PostTargetDto {
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
  };
}

export function toPostDto(p: PostEntity, targets: PostTargetEntity[]): PostDto {
  return {
    id: p.id,
    state: p.state,
    contentType: p.contentType,
    caption: p.caption,
    message: p.message,
    scheduledAt: p.scheduledAt?.toISOString() ?? null,
    createdAt: p.createdAt.toISOString(),
    targets: targets.map(toTargetDto),
  };
}

export function toPostDetailDto(p: PostEntity, targets: PostTargetEntity[]): PostDetailDto {
  return { ...toPostDto(p, targets), content: toPublishContent(p.content) as unknown as PostContentDto };
}

export function toHistoryDto(h: PostHistoryEntity): PostHistoryEntryDto {
  return { from: h.from, to: h.to, at: h.at.toISOString(), reason: h.reason, actor: h.actor };
}
