import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Min } from 'class-validator';
import { DEFAULT_PAGE_SIZE, ProfileQueryDto } from '../../../common/pagination/pagination';
import { PLATFORM_NAMES, PlatformName } from '../../platforms/platform-name';

const toInt = ({ value }: { value: unknown }): unknown => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value);

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
  @ApiPropertyOptional({ minimum: 1, default: DEFAULT_PAGE_SIZE, description: 'Clamped to 100' })
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'limit must be an integer' })
  @Min(1, { message: 'limit must be at least 1' })
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
