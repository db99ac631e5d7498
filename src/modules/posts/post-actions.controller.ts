import { Body, Controller, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { ProfileQueryDto } from '@/common/pagination/pagination';
import { RejectPostDto } from './dto/create-post.dto';
import { PostActionResultDto, RetriedPostDto } from './dto/post-response.dto';
import { PostsApprovalService } from './services/posts-approval.service';
import { PostsLifecycleService } from './services/posts-lifecycle.service';

const WRITE_ERRORS = [
  'trial_expired',
  'idempotency_key_reused',
  'idempotency_key_in_use',
  'not_found',
  'invalid_state_transition',
] as const;

@ApiTags('Posts')
@Controller('v1/posts/:id')
export class PostActionsController {
  constructor(
    private readonly lifecycle: PostsLifecycleService,
    private readonly approvals: PostsApprovalService,
  ) {}

  /** Publish now: draft, scheduled or approved → queued (pending_approval where the profile requires approval). */
  @Post('publish')
  @HttpCode(200)
  @RequirePermission('posts:write', {
    errors: [...WRITE_ERRORS, 'key_not_linked_to_user', 'approval_required', 'platform_not_allowed', 'invalid_request'],
  })
  publish(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Query() _query: ProfileQueryDto,
  ): Promise<PostActionResultDto> {
    return this.lifecycle.publish(auth, id);
  }

  /** Requeue a failed or partially_published post; only the failed accounts are published again. */
  @Post('retry')
  @HttpCode(200)
  @RequirePermission('posts:write', { errors: [...WRITE_ERRORS, 'key_not_linked_to_user'] })
  retry(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Query() _query: ProfileQueryDto,
  ): Promise<RetriedPostDto> {
    return this.lifecycle.retry(auth, id);
  }

  /** Approve a post pending approval; it continues to scheduled (scheduledAt ahead) or queued. */
  @Post('approve')
  @HttpCode(200)
  @RequirePermission('posts:approve', { errors: [...WRITE_ERRORS] })
  approve(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Query() _query: ProfileQueryDto,
  ): Promise<PostActionResultDto> {
    return this.approvals.approve(auth, id);
  }

  /** Reject a post pending approval; it stays unpublished. */
  @Post('reject')
  @HttpCode(200)
  @RequirePermission('posts:approve', { errors: [...WRITE_ERRORS, 'invalid_request'] })
  reject(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: RejectPostDto,
  ): Promise<PostActionResultDto> {
    return this.approvals.reject(auth, id, dto);
  }
}
