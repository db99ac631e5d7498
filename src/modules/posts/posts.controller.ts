import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiCreatedResponse, getSchemaPath } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { pinSuccessStatus } from '@/common/idempotency/idempotency.interceptor';
import { ProfileQueryDto } from '@/common/pagination/pagination';
import { BulkCreatePostsDto, CreatePostDto, UpdatePostDto, ValidatePostDto } from './dto/create-post.dto';
import { ListPostsQueryDto } from './dto/list-posts.dto';
import {
  BulkCreatedPostsDto,
  BulkValidationDto,
  CancelledPostDto,
  CreatedPostDto,
  PostActionResultDto,
  PostHistoryDto,
  PostListDto,
  PostResponseDto,
  PostValidationDto,
} from './dto/post-response.dto';
import { PostsBulkService } from './services/posts-bulk.service';
import { PostsCreateService } from './services/posts-create.service';
import { PostsLifecycleService } from './services/posts-lifecycle.service';
import { PostsReadService } from './services/posts-read.service';

const WRITE_ERRORS = ['invalid_request', 'trial_expired', 'idempotency_key_reused', 'idempotency_key_in_use'] as const;

@ApiTags('Posts')
@Controller('v1/posts')
export class PostsController {
  constructor(
    private readonly creator: PostsCreateService,
    private readonly reader: PostsReadService,
    private readonly lifecycle: PostsLifecycleService,
    private readonly bulk: PostsBulkService,
  ) {}

  /** List the profile's posts, newest first, with their targets. */
  @Get()
  @RequirePermission('posts:read', { errors: ['invalid_request'] })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListPostsQueryDto): Promise<PostListDto> {
    return this.reader.list(auth, query);
  }

  /**
   * Create a draft, a scheduled post or a post queued for immediate publishing. Accepts the
   * older shape (content object, targetIds, saveAsDraft, scheduledAt), its legacy flat body,
   * and the newer shape (content string or object, accountIds, publishNow, scheduledAt,
   * mediaUrls, platforms).
   */
  @Post()
  @RequirePermission('posts:write', {
    errors: [
      ...WRITE_ERRORS,
      'invalid_scheduled_at',
      'key_not_linked_to_user',
      'plan_limit',
      'account_not_allowed',
      'platform_not_allowed',
      'approval_required',
      'daily_post_limit',
      'no_accounts_connected',
      'accounts_not_found',
    ],
  })
  create(@CurrentAuth() auth: AuthContext, @Body() dto: CreatePostDto): Promise<CreatedPostDto> {
    return this.creator.create(auth, dto);
  }

  /**
   * Create up to 100 newer-shape posts at once, all or nothing: `201 { posts: [{ id, state }] }`
   * in input order, or `400 invalid_request` with `details.errors: [{ index, code, field, message }]`
   * and nothing created. Caps (plan, daily) count the whole batch; one Idempotency-Key covers it.
   * `dryRun: true` runs every check and answers `200 { valid, results }`, creating nothing.
   */
  @Post('bulk')
  @ApiExtraModels(BulkValidationDto)
  @ApiCreatedResponse({ type: BulkCreatedPostsDto, description: 'Every post was created (in input order).' })
  @ApiOkResponse({ schema: { $ref: getSchemaPath(BulkValidationDto) }, description: 'dryRun: true; nothing created.' })
  @RequirePermission('posts:write', {
    errors: [...WRITE_ERRORS, 'key_not_linked_to_user', 'plan_limit', 'daily_post_limit'],
  })
  async createBulk(
    @CurrentAuth() auth: AuthContext,
    @Body() dto: BulkCreatePostsDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<BulkCreatedPostsDto | BulkValidationDto> {
    if (dto.dryRun !== true) return this.bulk.create(auth, dto);
    const result = await this.bulk.dryRun(auth, dto);
    pinSuccessStatus(res, 200);
    return result;
  }

  /** Run the checks of a real publish (each target network's rules, blocked terms) and post nothing. */
  @Post('validate')
  @HttpCode(200)
  @RequirePermission('posts:write', {
    errors: [
      'invalid_request',
      'invalid_scheduled_at',
      'account_not_allowed',
      'platform_not_allowed',
      'no_accounts_connected',
      'accounts_not_found',
    ],
  })
  validate(@CurrentAuth() auth: AuthContext, @Body() dto: ValidatePostDto): Promise<PostValidationDto> {
    return this.creator.validate(auth, dto);
  }

  /** One post with its full content and per-account targets. */
  @Get(':id')
  @RequirePermission('posts:read', { errors: ['not_found'] })
  get(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Query() _query: ProfileQueryDto,
  ): Promise<PostResponseDto> {
    return this.reader.get(auth, id);
  }

  /** Every state change of the post, oldest first. */
  @Get(':id/history')
  @RequirePermission('posts:read', { errors: ['not_found'] })
  history(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Query() _query: ProfileQueryDto,
  ): Promise<PostHistoryDto> {
    return this.reader.history(auth, id);
  }

  /**
   * Edit a draft or scheduled post. `scheduledAt` with `saveAsDraft: false` schedules a draft;
   * a new `scheduledAt` reschedules a scheduled post.
   */
  @Put(':id')
  @RequirePermission('posts:write', {
    errors: [
      ...WRITE_ERRORS,
      'not_found',
      'invalid_state_transition',
      'invalid_scheduled_at',
      'key_not_linked_to_user',
      'approval_required',
      'platform_not_allowed',
    ],
  })
  update(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: UpdatePostDto,
  ): Promise<PostActionResultDto> {
    return this.lifecycle.update(auth, id, dto);
  }

  /** Cancel a scheduled or queued post. */
  @Delete(':id')
  @RequirePermission('posts:write', { errors: [...WRITE_ERRORS, 'not_found', 'invalid_state_transition'] })
  cancel(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Query() _query: ProfileQueryDto,
  ): Promise<CancelledPostDto> {
    return this.lifecycle.cancel(auth, id);
  }
}
