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
@Index('ix_events_unhandled', ['dispatchedAt'], { where: 'handled_at IS NULL AND dispatched_at IS NOT NULL' })
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

  /** Set by the relay when the row was handed to the `events` queue. */
  @Column({ name: 'dispatched_at', type: 'timestamptz', nullable: true })
  dispatchedAt: Date | null;

  /**
   * Set by the `dispatch-event` handler once the event is fully handled (fanned out). A row
   * relayed but never handled (its job lost with Redis) is redriven by the relay.
   */
  @Column({ name: 'handled_at', type: 'timestamptz', nullable: true })
  handledAt: Date | null;
}
