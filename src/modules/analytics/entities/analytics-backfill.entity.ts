import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Which connection of an account had its history backfilled. A reconnect changes the account's
 * `connected_at`, so the gap is backfilled again; a network with less history than asked for
 * is not asked again every hour.
 */
@Entity({ name: 'analytics_backfills' })
export class AnalyticsBackfillEntity {
  @PrimaryColumn({ name: 'account_id', type: 'uuid' })
  accountId: string;

  /** `social_accounts.connected_at` of the connection that was backfilled. */
  @Column({ name: 'connected_at', type: 'timestamptz' })
  connectedAt: Date;

  @Column({ name: 'from_date', type: 'date' })
  fromDate: string;

  @Column({ name: 'days', type: 'int' })
  days: number;

  @Column({ name: 'backfilled_at', type: 'timestamptz' })
  backfilledAt: Date;
}
