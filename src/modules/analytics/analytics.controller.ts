import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { AnalyticsHistoryService } from './analytics-history.service';
import { AnalyticsLiveService } from './analytics-live.service';
import {
  AnalyticsHistoryDto,
  AnalyticsHistoryQueryDto,
  LiveAnalyticsDto,
  LiveAnalyticsQueryDto,
} from './dto/analytics.dto';

@ApiTags('Analytics')
@Controller('v1/analytics')
export class AnalyticsController {
  constructor(
    private readonly history: AnalyticsHistoryService,
    private readonly live: AnalyticsLiveService,
  ) {}

  /**
   * Get live analytics from the networks.
   *
   * Read now: today's numbers of every connected account of the profile, of one account
   * (`accountId`), or the lifetime numbers of a published post's items (`postId`).
   */
  @Get()
  @RequirePermission('analytics:read', { errors: ['invalid_request', 'not_found'] })
  getLive(@CurrentAuth() auth: AuthContext, @Query() query: LiveAnalyticsQueryDto): Promise<LiveAnalyticsDto> {
    return this.live.live(auth, query);
  }

  /**
   * Get analytics history.
   *
   * From the daily snapshots: a summary against the previous period, timeseries, per-network
   * breakdown, top content and insights. The range covers at most 366 days.
   */
  @Get('history')
  @RequirePermission('analytics:read', { errors: ['invalid_request'] })
  getHistory(@CurrentAuth() auth: AuthContext, @Query() query: AnalyticsHistoryQueryDto): Promise<AnalyticsHistoryDto> {
    return this.history.history(auth, query);
  }
}
