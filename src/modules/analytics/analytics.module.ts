import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { PostsModule } from '../posts/posts.module';
import { AnalyticsHistoryService } from './analytics-history.service';
import { AnalyticsLiveService } from './analytics-live.service';
import { AnalyticsSnapshotService } from './analytics-snapshot.service';
import { AnalyticsController } from './analytics.controller';
import { AccountDailyMetricEntity } from './entities/account-daily-metric.entity';
import { AnalyticsBackfillEntity } from './entities/analytics-backfill.entity';
import { PostDailyMetricEntity } from './entities/post-daily-metric.entity';
import { AnalyticsBackfillProcessor } from './jobs/analytics-backfill.processor';
import { SnapshotAnalyticsJob } from './jobs/snapshot-analytics.job';

@Module({
  imports: [
    TypeOrmModule.forFeature([AccountDailyMetricEntity, PostDailyMetricEntity, AnalyticsBackfillEntity]),
    AccountsModule,
    PostsModule,
  ],
  controllers: [AnalyticsController],
  providers: [
    AnalyticsHistoryService,
    AnalyticsLiveService,
    AnalyticsSnapshotService,
    AnalyticsBackfillProcessor,
    SnapshotAnalyticsJob,
  ],
  exports: [AnalyticsSnapshotService],
})
export class AnalyticsModule {}
