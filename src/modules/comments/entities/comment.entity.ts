import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { PlatformName } from '@/modules/networks/platform-name';

/** A comment read from a network on one of our published items. */
@Entity({ name: 'comments' })
@Index('uq_comments_account_external', ['accountId', 'externalId'], { unique: true })
@Index('ix_comments_profile_created', ['profileId', 'createdAt', 'id'])
@Index('ix_comments_profile_account_created', ['profileId', 'accountId', 'createdAt', 'id'])
@Index('ix_comments_profile_post_created', ['profileId', 'postId', 'createdAt', 'id'])
export class CommentEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId: string;

  @Column({ name: 'post_id', type: 'uuid' })
  postId: string;

  @Column({ name: 'target_id', type: 'uuid' })
  targetId: string;

  @Column({ type: 'text' })
  platform: PlatformName;

  /** The network's id of the comment. */
  @Column({ name: 'external_id', type: 'text' })
  externalId: string;

  /** The network's id of the item commented on. */
  @Column({ name: 'external_post_id', type: 'text' })
  externalPostId: string;

  @Column({ name: 'author_name', type: 'text' })
  authorName: string;

  @Column({ type: 'text' })
  text: string;

  /** When the comment was made (the network's time). */
  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  /** When this service first stored it. */
  @CreateDateColumn({ name: 'received_at', type: 'timestamptz' })
  receivedAt: Date;
}
