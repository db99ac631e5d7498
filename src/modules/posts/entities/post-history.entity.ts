import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Actor } from '@/common/outbox/event.entity';

/** One row per state change of a post. */
@Entity({ name: 'post_history' })
@Index('ix_post_history_post_at', ['postId', 'at'])
export class PostHistoryEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'post_id', type: 'uuid' })
  postId: string;

  @Column({ name: 'from_state', type: 'text', nullable: true })
  from: string | null;

  @Column({ name: 'to_state', type: 'text' })
  to: string;

  @Column({ type: 'text', nullable: true })
  reason: string | null;

  @Column({ type: 'jsonb' })
  actor: Actor;

  /** clock_timestamp(), not now(): several changes in one transaction (approve → queued) keep their order. */
  @CreateDateColumn({ name: 'at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  at: Date;
}
