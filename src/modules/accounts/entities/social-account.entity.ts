import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { PlatformName } from '@/modules/networks/platform-name';

export type AccountStatus = 'active' | 'expired' | 'disconnected';

/** A connected social account (page, profile, channel…). Tokens are AES-256-GCM ciphertexts. */
@Entity({ name: 'social_accounts' })
@Index('uq_social_accounts_profile_platform_page', ['profileId', 'platform', 'platformAccountId'], { unique: true })
export class SocialAccountEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Index('ix_social_accounts_profile')
  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ type: 'text' })
  platform: PlatformName;

  /** The network's id of the page/account (the spec's platformPageId). */
  @Column({ name: 'platform_account_id', type: 'text' })
  platformAccountId: string;

  /** Display name (the spec's pageName). */
  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  username: string | null;

  @Column({ name: 'avatar_url', type: 'text', nullable: true })
  avatarUrl: string | null;

  @Column({ type: 'text', default: 'active' })
  status: AccountStatus;

  @Column({ name: 'access_token_enc', type: 'text', nullable: true })
  accessTokenEnc: string | null;

  @Column({ name: 'refresh_token_enc', type: 'text', nullable: true })
  refreshTokenEnc: string | null;

  /** Which encryption key sealed the tokens (for rotation). */
  @Column({ name: 'token_key_id', type: 'text', nullable: true })
  tokenKeyId: string | null;

  @Column({ name: 'token_expires_at', type: 'timestamptz', nullable: true })
  tokenExpiresAt: Date | null;

  @Column({ name: 'refresh_expires_at', type: 'timestamptz', nullable: true })
  refreshExpiresAt: Date | null;

  /** When the current tokens were issued (connect or refresh); spaces background refreshes of short-lived tokens. */
  @Column({ name: 'token_issued_at', type: 'timestamptz', nullable: true })
  tokenIssuedAt: Date | null;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  scopes: string[];

  /** Network-specific extras (e.g. the parent user id of an Instagram business account). */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  metadata: Record<string, unknown>;

  @Column({ name: 'comment_sync', type: 'boolean', default: false })
  commentSync: boolean;

  @Column({ name: 'connected_at', type: 'timestamptz' })
  connectedAt: Date;

  @Column({ name: 'disconnected_at', type: 'timestamptz', nullable: true })
  disconnectedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
