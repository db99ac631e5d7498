import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ErrorCategory } from '@/modules/networks/kit/adapter';
import type { PlatformName } from '@/modules/networks/platform-name';

/**
 * `pending` → `publishing` (a call to the network is under way) → `success` | `failed`.
 * A target found in `publishing` after a crash has an unknown outcome: check before re-sending.
 * `waiting_on_network`: the network took the item and is still processing it (moderation,
 * transcoding, a media container); follow-up checks settle it, nothing is sent again.
 */
export type TargetStatus = 'pending' | 'publishing' | 'waiting_on_network' | 'success' | 'failed';

/** A failed target's category: a network's (the adapter contract's), or ours before any network call. */
export type TargetErrorCategory =
  | ErrorCategory
  /** Refused by the profile's policy at publish time; never sent. */
  | 'policy_violation';

/**
 * The first comment's at-most-once protocol: `attempting` is committed before the network call;
 * a target found `attempting` had its call interrupted and is marked `failed`, never sent again.
 */
export type FirstCommentStatus = 'attempting' | 'success' | 'failed';

/** The columns that say how a target's publish ended (set together when it settles). */
export type TargetOutcomeField = 'status' | 'externalId' | 'externalUrl' | 'error' | 'errorCategory' | 'publishedAt';

@Entity({ name: 'post_targets' })
@Index('uq_post_targets_post_account', ['postId', 'accountId'], { unique: true })
@Index('ix_post_targets_profile_platform', ['profileId', 'platform', 'postId'])
// The post-count triggers' lookup of a post's targets, by post whatever the table's statistics.
@Index('ix_post_targets_post_profile_platform', ['postId', 'profileId', 'platform'])
// Network caps count published targets per account (or per network, for a per-app cap) in a window.
@Index('ix_post_targets_account_published', ['accountId', 'publishedAt'], { where: "status = 'success'" })
@Index('ix_post_targets_platform_published', ['platform', 'publishedAt'], { where: "status = 'success'" })
// ...and the targets in flight, which hold a unit of those caps until they settle.
@Index('ix_post_targets_platform_in_flight', ['platform', 'accountId'], {
  where: "status IN ('publishing', 'waiting_on_network')",
})
export class PostTargetEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'post_id', type: 'uuid' })
  postId: string;

  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ type: 'text' })
  platform: PlatformName;

  /** Page name at the time of publishing, for results. */
  @Column({ name: 'page_name', type: 'text' })
  pageName: string;

  @Column({ type: 'text', default: 'pending' })
  status: TargetStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** The network's id of the published item. */
  @Column({ name: 'external_id', type: 'text', nullable: true })
  externalId: string | null;

  @Column({ name: 'external_url', type: 'text', nullable: true })
  externalUrl: string | null;

  /** Network-side work in progress (container id, upload URL…) so a resumed publish continues it. */
  @Column({ name: 'publish_state', type: 'jsonb', default: () => "'{}'" })
  publishState: Record<string, unknown>;

  /** When the target started waiting on the network's processing. */
  @Column({ name: 'waiting_since', type: 'timestamptz', nullable: true })
  waitingSince: Date | null;

  /** When a follow-up check of a target waiting on the network is due. */
  @Column({ name: 'next_check_at', type: 'timestamptz', nullable: true })
  nextCheckAt: Date | null;

  /** Follow-up checks made while waiting on the network. */
  @Column({ type: 'int', default: 0 })
  checks: number;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'error_category', type: 'text', nullable: true })
  errorCategory: TargetErrorCategory | null;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt: Date | null;

  /** null: no first comment sent (none requested, or the target has not published yet). */
  @Column({ name: 'first_comment_status', type: 'text', nullable: true })
  firstCommentStatus: FirstCommentStatus | null;

  /** The network's id of the comment. */
  @Column({ name: 'first_comment_id', type: 'text', nullable: true })
  firstCommentId: string | null;

  @Column({ name: 'first_comment_error', type: 'text', nullable: true })
  firstCommentError: string | null;

  /** When the comment's network call was started (the attempt marker). */
  @Column({ name: 'first_comment_at', type: 'timestamptz', nullable: true })
  firstCommentAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
