import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** An API key; only its SHA-256 hash is stored. */
@Entity({ name: 'api_keys' })
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('ix_api_keys_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ type: 'text' })
  name: string;

  /** The first characters of the key, shown in listings. */
  @Column({ type: 'text' })
  prefix: string;

  @Index('uq_api_keys_hash', { unique: true })
  @Column({ name: 'key_hash', type: 'text' })
  keyHash: string;

  @Column({ type: 'text', array: true })
  permissions: string[];

  /** null = every profile of the workspace */
  @Column({ name: 'profile_ids', type: 'uuid', array: true, nullable: true })
  profileIds: string[] | null;

  /** null = no account restriction */
  @Column({ name: 'account_ids', type: 'uuid', array: true, nullable: true })
  accountIds: string[] | null;

  @Column({ name: 'home_profile_id', type: 'uuid' })
  homeProfileId: string;

  @Column({ name: 'owner_user_id', type: 'uuid', nullable: true })
  ownerUserId: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'max_posts_per_day', type: 'int', nullable: true })
  maxPostsPerDay: number | null;

  @Column({ name: 'rate_limit_per_minute', type: 'int', nullable: true })
  rateLimitPerMinute: number | null;

  @Column({ name: 'rate_limit_per_hour', type: 'int', nullable: true })
  rateLimitPerHour: number | null;

  @Column({ name: 'created_by_key_id', type: 'uuid', nullable: true })
  createdByKeyId: string | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
