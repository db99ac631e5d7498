import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** Guardrails applied to everything in a profile. A profile without a row has the default policy. */
@Entity({ name: 'policies' })
export class PolicyEntity {
  @PrimaryColumn({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  /** null = every platform */
  @Column({ name: 'allowed_platforms', type: 'text', array: true, nullable: true })
  allowedPlatforms: string[] | null;

  @Column({ name: 'require_approval', type: 'boolean', default: false })
  requireApproval: boolean;

  @Column({ name: 'approver_user_ids', type: 'uuid', array: true, default: () => "'{}'" })
  approverUserIds: string[];

  /** Posts whose text contains one of these (case-insensitive) are refused. */
  @Column({ name: 'blocked_terms', type: 'text', array: true, default: () => "'{}'" })
  blockedTerms: string[];

  /** Latest a post may be scheduled ahead, in days; null = no limit. */
  @Column({ name: 'max_schedule_days_ahead', type: 'int', nullable: true })
  maxScheduleDaysAhead: number | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
