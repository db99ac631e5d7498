import { Column, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { PlatformName } from '@/modules/networks/platform-name';

/** One account's numbers for one UTC day, as the network reports them (today's row is updated until the day ends). */
@Entity({ name: 'account_daily_metrics' })
@Index('uq_account_daily_metrics_account_date', ['accountId', 'date'], { unique: true })
@Index('ix_account_daily_metrics_profile_date', ['profileId', 'date'])
export class AccountDailyMetricEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ type: 'text' })
  platform: PlatformName;

  /** YYYY-MM-DD (UTC). */
  @Column({ type: 'date' })
  date: string;

  @Column({ type: 'int' })
  views: number;

  @Column({ type: 'int' })
  engagement: number;

  @Column({ type: 'int' })
  shares: number;

  /** Total followers at the end of the day (a level, not a flow). */
  @Column({ type: 'int' })
  followers: number;

  @Column({ type: 'int' })
  reach: number;

  @UpdateDateColumn({ name: 'captured_at', type: 'timestamptz' })
  capturedAt: Date;
}
