import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export interface Actor {
  type: 'api_key' | 'user' | 'system';
  id: string | null;
  /** The human behind an API key, when it has an owner. */
  userId?: string | null;
}

/**
 * One table is both the audit trail (`GET /v1/events`) and the transactional outbox: a row is
 * written in the same transaction as the change it describes; the relay dispatches rows whose
 * `dispatched_at` is null.
 */
@Entity({ name: 'events' })
@Index('ix_events_profile_created', ['profileId', 'createdAt'])
@Index('ix_events_undispatched', ['createdAt'], { where: 'dispatched_at IS NULL' })
export class EventEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('ix_events_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ name: 'profile_id', type: 'uuid', nullable: true })
  profileId: string | null;

  @Column({ type: 'text' })
  type: string;

  @Column({ type: 'jsonb' })
  actor: Actor;

  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;
}
