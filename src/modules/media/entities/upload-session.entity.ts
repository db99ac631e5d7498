import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Actor } from '@/common/outbox/event.entity';

/** Stored states; `expired` is read off `expiresAt` (a pending session past it). */
export type StoredUploadSessionStatus = 'pending' | 'completed';
export type UploadSessionStatus = StoredUploadSessionStatus | 'expired';

/** A hosted page where a person picks files to upload into a profile. */
@Entity({ name: 'media_upload_sessions' })
export class UploadSessionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Index('ix_media_upload_sessions_profile')
  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ type: 'text', default: 'pending' })
  status: StoredUploadSessionStatus;

  /** The `token` of the page URL (sealed): whoever holds the URL may upload into this session. */
  @Column({ name: 'page_token_enc', type: 'text' })
  pageTokenEnc: string;

  /** Where the page sends the person when done (`?session=<id>&status=completed`); null = a hosted "done" page. */
  @Column({ name: 'redirect_url', type: 'text', nullable: true })
  redirectUrl: string | null;

  @Column({ name: 'max_files', type: 'int' })
  maxFiles: number;

  /** Who created the session; its events carry this actor. */
  @Column({ type: 'jsonb' })
  actor: Actor;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
