import { Injectable } from '@nestjs/common';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import { AnalyticsSnapshotService } from '../analytics-snapshot.service';

/** Periodic: stores the day's metrics of every account and recent post. */
@Injectable()
export class SnapshotAnalyticsJob {
  constructor(private readonly snapshots: AnalyticsSnapshotService) {}

  @JobHandler('snapshot-analytics')
  onSnapshotAnalytics(): Promise<unknown> {
    return this.snapshots.snapshotAll();
  }
}
