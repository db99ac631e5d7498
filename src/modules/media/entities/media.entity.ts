import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type MediaStatus = 'pending' | 'uploaded';

/** bigint columns come back from pg as strings; sizes fit a JS number. */
const bigintAsNumber = { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) };

/** One file a client was given an upload URL for: `pending` until its bytes arrive. */
@Entity({ name: 'media' })
@Index('ix_media_profile_created', ['profileId', 'createdAt'])
export class MediaEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('ix_media_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  /** The upload session this file came through, if any. */
  @Index('ix_media_session', { where: 'session_id IS NOT NULL' })
  @Column({ name: 'session_id', type: 'uuid', nullable: true })
  sessionId: string | null;

  /** Storage key: `<profileId>/<uuid>.<ext>`. */
  @Index('uq_media_key', { unique: true })
  @Column({ type: 'text' })
  key: string;

  @Column({ name: 'file_name', type: 'text' })
  fileName: string;

  @Column({ name: 'file_type', type: 'text' })
  fileType: string;

  /** Bytes stored; null until uploaded. */
  @Column({ type: 'bigint', nullable: true, transformer: bigintAsNumber })
  size: number | null;

  @Column({ type: 'text', default: 'pending' })
  status: MediaStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'uploaded_at', type: 'timestamptz', nullable: true })
  uploadedAt: Date | null;
}
