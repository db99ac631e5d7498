import { Body, Controller, Get, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { ProfileQueryDto } from '@/common/pagination/pagination';
import { PostingQueueService } from './posting-queue.service';
import { NextSlotsDto, NextSlotsQueryDto, PutQueueDto, QueueDto } from './queue.dto';

@ApiTags('Queue')
@Controller('v1/queue')
export class QueueController {
  constructor(private readonly queue: PostingQueueService) {}

  /** The profile's posting queue: weekly slots in its time zone (none yet: UTC and no slots). */
  @Get()
  @RequirePermission('posts:read')
  get(@CurrentAuth() auth: AuthContext, @Query() _query: ProfileQueryDto): Promise<QueueDto> {
    return this.queue.get(auth);
  }

  /** Replace the profile's queue. An unknown time zone is 400 invalid_request. */
  @Put()
  @RequirePermission('posts:write', { errors: ['invalid_request'] })
  put(@CurrentAuth() auth: AuthContext, @Body() dto: PutQueueDto): Promise<QueueDto> {
    return this.queue.put(auth, dto);
  }

  /**
   * The next free slot times in UTC (default 5, at most 50), following the zone's daylight-saving
   * changes; slots taken by posts created with `addToQueue: true` are left out.
   */
  @Get('next-slots')
  @RequirePermission('posts:read', { errors: ['invalid_request'] })
  next(@CurrentAuth() auth: AuthContext, @Query() query: NextSlotsQueryDto): Promise<NextSlotsDto> {
    return this.queue.next(auth, query.count ?? 5);
  }
}
