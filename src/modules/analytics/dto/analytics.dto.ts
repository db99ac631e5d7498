import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches } from 'class-validator';
import { ProfileQueryDto } from '@/common/pagination/pagination';
import { PLATFORM_NAMES, PlatformName } from '@/modules/networks/platform-name';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export class AnalyticsHistoryQueryDto extends ProfileQueryDto {
  /** First day (UTC), YYYY-MM-DD; default 28 days ago. */
  @ApiPropertyOptional({ format: 'date', example: '2026-03-01' })
  @IsOptional()
  @IsString()
  @Matches(DATE, { message: 'from must be a date (YYYY-MM-DD)' })
  from?: string;

  /** Last day (UTC), YYYY-MM-DD, included; default today. */
  @ApiPropertyOptional({ format: 'date', example: '2026-03-28' })
  @IsOptional()
  @IsString()
  @Matches(DATE, { message: 'to must be a date (YYYY-MM-DD)' })
  to?: string;
}

export class MetricSummaryDto {
  /** This period: the sum over the range (followers: the last value; engagementRate: a percentage). */
  value: number;
  /** The same over the previous period. */
  previousValue: number;
  /** value − previousValue. */
  delta: number;
  /** delta as a percentage of previousValue; null when previousValue is 0. */
  @ApiProperty({ type: Number, nullable: true })
  deltaPercent: number | null;
}

export class AnalyticsSummaryDto {
  views: MetricSummaryDto;
  engagement: MetricSummaryDto;
  shares: MetricSummaryDto;
  /** Followers on the last day with a snapshot in each period, summed over accounts. */
  followers: MetricSummaryDto;
  reach: MetricSummaryDto;
  /** engagement ÷ reach × 100 (0 when reach is 0). */
  engagementRate: MetricSummaryDto;
}

export class DailyPointDto {
  /** YYYY-MM-DD (UTC). */
  date: string;
  views: number;
  engagement: number;
  shares: number;
  reach: number;
  /** Followers that day summed over the accounts with a snapshot; null when none has one. */
  @ApiProperty({ type: Number, nullable: true })
  followers: number | null;
  engagementRate: number;
}

export class PlatformTotalsDto {
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: PlatformName;
  /** Accounts of this network with snapshots in the range. */
  accounts: number;
  views: number;
  engagement: number;
  shares: number;
  reach: number;
  followers: number;
  engagementRate: number;
  /** This network's part of the profile's engagement, in percent. */
  engagementShare: number;
}

export class TopContentTargetDto {
  accountId: string;
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: PlatformName;
  externalId: string;
  url: string | null;
  views: number;
  engagement: number;
}

export class TopContentDto {
  postId: string;
  /** The post's text (first 280 characters). */
  text: string | null;
  @ApiProperty({ enum: ['text', 'image', 'video'] })
  contentType: string;
  publishedAt: string;
  /** Lifetime numbers of the post's published items, summed, as last read on or before `to`. */
  views: number;
  likes: number;
  comments: number;
  shares: number;
  reach: number;
  engagement: number;
  targets: TopContentTargetDto[];
}

export class InsightDto {
  /** `no_history`, `engagement_trend`, `views_trend`, `follower_growth`, `best_day`, `top_platform`, `top_post`. */
  type: string;
  message: string;
  /** The number the insight is about (a percentage for trends). */
  @ApiProperty({ type: Number, nullable: true })
  value: number | null;
  date?: string;
  @ApiPropertyOptional({ enum: PLATFORM_NAMES })
  platform?: PlatformName;
  postId?: string;
}

export class AnalyticsHistoryDto {
  profileId: string;
  from: string;
  to: string;
  /** The period just before `from`, of the same number of days. */
  previousFrom: string;
  previousTo: string;
  /** Days of the range with at least one snapshot. */
  snapshotDays: number;
  hasHistory: boolean;
  summary: AnalyticsSummaryDto;
  /** One point per day of the range, every account summed. */
  timeseries: DailyPointDto[];
  /** The same per network (networks with snapshots in the range). */
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { $ref: '#/components/schemas/DailyPointDto' } },
  })
  timeseriesByPlatform: Record<string, DailyPointDto[]>;
  /** Range totals per network, most engagement first. */
  platforms: PlatformTotalsDto[];
  /** Posts published in the range, most engagement first (at most 10). */
  topContent: TopContentDto[];
  insights: InsightDto[];
}

export class LiveAnalyticsQueryDto extends ProfileQueryDto {
  /** One account (default: every active account of the profile). */
  @IsOptional()
  @IsString()
  accountId?: string;

  /** A published post: its items' numbers on each network (narrowed by `accountId`). */
  @IsOptional()
  @IsString()
  postId?: string;
}

export class LiveErrorDto {
  message: string;
  /** auth_expired, network_rate_limited, network_error… */
  category: string;
}

export class LiveAccountMetricsDto {
  date: string;
  views: number;
  engagement: number;
  shares: number;
  followers: number;
  reach: number;
}

export class LiveAccountDto {
  accountId: string;
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: PlatformName;
  name: string;
  /** Today's numbers so far (UTC), read from the network now; null when the network failed. */
  @ApiProperty({ type: () => LiveAccountMetricsDto, nullable: true })
  metrics: LiveAccountMetricsDto | null;
  @ApiProperty({ type: () => LiveErrorDto, nullable: true })
  error: LiveErrorDto | null;
}

export class LiveItemMetricsDto {
  views: number;
  likes: number;
  comments: number;
  shares: number;
  reach: number;
  engagement: number;
}

export class LivePostTargetDto {
  postId: string;
  accountId: string;
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: PlatformName;
  externalId: string;
  url: string | null;
  /** Lifetime numbers of the item, read from the network now; null when the network failed. */
  @ApiProperty({ type: () => LiveItemMetricsDto, nullable: true })
  metrics: LiveItemMetricsDto | null;
  @ApiProperty({ type: () => LiveErrorDto, nullable: true })
  error: LiveErrorDto | null;
}

export class LiveAnalyticsDto {
  profileId: string;
  fetchedAt: string;
  /** Account-level numbers (when no `postId` is given). */
  accounts: LiveAccountDto[];
  /** Item-level numbers of the post's published targets (when `postId` is given). */
  posts: LivePostTargetDto[];
}
