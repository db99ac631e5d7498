import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { CommentsService } from './comments.service';
import { CommentListDto, ListCommentsQueryDto } from './dto/comment.dto';

@ApiTags('Comments')
@Controller('v1/comments')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  /**
   * List comments.
   *
   * Comments received on published content (facebook and instagram accounts with
   * `commentSync`), oldest first. Follow `nextCursor` until it is null.
   */
  @Get()
  @RequirePermission('comments:read', { errors: ['invalid_request', 'not_found'] })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListCommentsQueryDto): Promise<CommentListDto> {
    return this.comments.list(auth, query);
  }
}
