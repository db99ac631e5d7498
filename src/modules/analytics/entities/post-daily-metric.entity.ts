import { Column, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { PlatformName } from '@/modules/networks/platform-name';

/** Lifetime numbers of one published item (a post's target) as read on one UTC day. */
@Entity({ name: 'post_daily_metrics' })
@Index('uq_post_daily_metrics_target_date', ['targetId', 'date'], { unique: true })
@Index('ix_post_daily_metrics_profile_date', ['profileId', 'date'])
export class PostDailyMetricEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ name: 'post_id', type: 'uuid' })
  postId: string;

  @Column({ name: 'target_id', type: 'uuid' })
  targetId: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ type: 'text' })
  platform: PlatformName;

  @Column({ name: 'external_id', type: 'text' })
  externalId: string;

  /** YYYY-MM-DD (UTC). */
  @Column({ type: 'date' })
  date: string;

  @Column({ type: 'int' })
  views: number;

  @Column({ type: 'int' })
  likes: number;

  @Column({ type: 'int' })
  comments: number;

  @Column({ type: 'int' })
  shares: number;

  @Column({ type: 'int' })
  reach: number;

  @Column({ type: 'int' })
  engagement: number;

  @UpdateDateColumn({ name: 'captured_at', type: 'timestamptz' })
  capturedAt: Date;
}
