import { ApiProperty } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID } from 'class-validator';
import { PageLimit, ProfileQueryDto } from '@/common/pagination/pagination';
import { PLATFORM_NAMES, PlatformName } from '@/modules/networks/platform-name';

export class ListCommentsQueryDto extends ProfileQueryDto {
  /** Only comments on this account's items. */
  @IsOptional()
  @IsUUID('all', { message: 'accountId must be a UUID' })
  accountId?: string;

  /** Only comments on this post's items. */
  @IsOptional()
  @IsUUID('all', { message: 'postId must be a UUID' })
  postId?: string;

  /** `nextCursor` of the previous page. */
  @IsOptional()
  @IsString()
  cursor?: string;

  /** Results per page; values over 100 are clamped to 100. */
  @PageLimit()
  limit?: number;
}

export class CommentDto {
  id: string;
  accountId: string;
  postId: string;
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: PlatformName;
  /** The network's id of the comment. */
  externalId: string;
  /** The network's id of the published item. */
  externalPostId: string;
  authorName: string;
  text: string;
  /** When the comment was made on the network. */
  createdAt: string;
  /** When the service first stored it (and fired `comment.received`). */
  receivedAt: string;
}

export class CommentListDto {
  /** Oldest first: ordered by (createdAt, id). */
  comments: CommentDto[];
  /** Pass as `cursor` for the next page; null on the last page. */
  @ApiProperty({ type: String, nullable: true })
  nextCursor: string | null;
}
