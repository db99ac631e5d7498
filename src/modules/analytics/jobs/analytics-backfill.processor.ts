import { Injectable, OnModuleInit } from '@nestjs/common';
import { OutboxRelayService } from '@/common/outbox/outbox-relay.service';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import type { JobPayloads } from '@/common/queue/jobs';
import { AccountSnapshot, AnalyticsSnapshotService } from '../analytics-snapshot.service';

/**
 * `backfill-analytics`: analytics from the first minute. Every `account.connected` event (written
 * in the connection's own transaction) is followed by this job, which the outbox relay enqueues
 * with the event: the account's last 90 days (where the network offers them) and today's numbers,
 * so GET /v1/analytics/history has them within seconds instead of after the hourly snapshot.
 * Idempotent: upserts per (account, day), and a connection already backfilled (same
 * `connected_at`) only refreshes yesterday and today; a reconnect backfills its gap again.
 */
@Injectable()
export class AnalyticsBackfillProcessor implements OnModuleInit {
  constructor(
    private readonly relay: OutboxRelayService,
    private readonly snapshots: AnalyticsSnapshotService,
  ) {}

  onModuleInit(): void {
    this.relay.followEvent('account.connected', 'backfill-analytics', accountOf, {
      attempts: 5,
      backoff: { type: 'exponential', delay: 5000 },
    });
  }

  @JobHandler('backfill-analytics')
  onBackfillAnalytics({ accountId }: JobPayloads['backfill-analytics']): Promise<AccountSnapshot> {
    return this.snapshots.snapshotAccount(accountId);
  }
}

function accountOf(data: Record<string, unknown>): JobPayloads['backfill-analytics'] | null {
  const account = data.account as { id?: unknown } | undefined;
  return typeof account?.id === 'string' ? { accountId: account.id } : null;
}
