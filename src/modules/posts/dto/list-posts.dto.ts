import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '@/common/pagination/pagination';
import { PLATFORM_NAMES, PlatformName } from '@/modules/networks/platform-name';
import { CONTENT_TYPES, ContentType, POST_STATES, PostState } from '../entities/post.entity';

export class ListPostsQueryDto extends PageQueryDto {
  /** Only posts in this state. */
  @ApiPropertyOptional({ enum: POST_STATES })
  @IsOptional()
  @IsIn(POST_STATES, { message: `state must be one of ${POST_STATES.join(', ')}` })
  state?: PostState;

  /** Only posts of this content type. */
  @ApiPropertyOptional({ enum: CONTENT_TYPES })
  @IsOptional()
  @IsIn(CONTENT_TYPES, { message: `contentType must be one of ${CONTENT_TYPES.join(', ')}` })
  contentType?: ContentType;

  /** Only posts with a target on this platform. */
  @ApiPropertyOptional({ enum: PLATFORM_NAMES })
  @IsOptional()
  @IsIn(PLATFORM_NAMES, { message: `platform must be one of ${PLATFORM_NAMES.join(', ')}` })
  platform?: PlatformName;
}
