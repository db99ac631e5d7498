import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const POST_STATES = [
  'draft',
  'pending_approval',
  'approved',
  'rejected',
  'scheduled',
  'queued',
  'processing',
  'published',
  'partially_published',
  'failed',
  'cancelled',
] as const;
export type PostState = (typeof POST_STATES)[number];

export const CONTENT_TYPES = ['text', 'image', 'video'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

/** Normalised PublishContent, whichever request shape created the post. */
export interface PostContent {
  contentType: ContentType;
  message?: string | null;
  caption?: string | null;
  link?: string | null;
  imageUrls?: string[];
  videoUrl?: string | null;
  platformCaptions?: Record<string, string>;
  perAccount?: Record<string, Record<string, unknown>>;
  /** Posted by each account on its published item (perAccount[id].firstComment overrides it). */
  firstComment?: string | null;
  /** Per-platform options: facebook, instagram, linkedin, tiktok, youtube, threads. */
  platforms?: Record<string, Record<string, unknown>>;
}

@Entity({ name: 'posts' })
@Index('ix_posts_profile_created', ['profileId', 'createdAt'])
@Index('ix_posts_profile_state_created', ['profileId', 'state', 'createdAt'])
@Index('ix_posts_profile_type_created', ['profileId', 'contentType', 'createdAt'])
@Index('ix_posts_due', ['scheduledAt'], { where: "state = 'scheduled'" })
@Index('ix_posts_queued', ['updatedAt'], { where: "state = 'queued'" })
@Index('ix_posts_processing', ['updatedAt'], { where: "state = 'processing'" })
@Index('ix_posts_key_created', ['createdByKeyId', 'createdAt'])
export class PostEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('ix_posts_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ type: 'text' })
  state: PostState;

  @Column({ name: 'content_type', type: 'text' })
  contentType: ContentType;

  @Column({ type: 'text', nullable: true })
  message: string | null;

  @Column({ type: 'text', nullable: true })
  caption: string | null;

  @Column({ type: 'jsonb' })
  content: PostContent;

  @Column({ name: 'scheduled_at', type: 'timestamptz', nullable: true })
  scheduledAt: Date | null;

  @Column({ name: 'created_by_key_id', type: 'uuid', nullable: true })
  createdByKeyId: string | null;

  @Column({ name: 'created_by_user_id', type: 'uuid', nullable: true })
  createdByUserId: string | null;

  @Column({ name: 'approved_by_user_id', type: 'uuid', nullable: true })
  approvedByUserId: string | null;

  @Column({ name: 'rejection_reason', type: 'text', nullable: true })
  rejectionReason: string | null;

  @Column({ name: 'published_at', type: 'timestamptz', nullable: true })
  publishedAt: Date | null;

  /** Bumped by every guarded transition; a delayed job carries it to detect a superseded schedule. */
  @Column({ type: 'int', default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
