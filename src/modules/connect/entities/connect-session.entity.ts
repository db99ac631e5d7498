import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Actor } from '@/common/outbox/event.entity';
import type { PlatformName } from '@/modules/networks/platform-name';

export type ConnectSessionStatus = 'pending' | 'completed' | 'failed' | 'expired';

export interface ConnectSessionError {
  code: string;
  message: string;
}

/**
 * A hosted OAuth connect flow. Secrets are kept as ciphertexts (page token, PKCE verifier, a
 * grant waiting for the person to pick pages) or as a hash (the OAuth state, looked up by it).
 */
@Entity({ name: 'connect_sessions' })
@Index('ix_connect_sessions_pending_expiry', ['expiresAt'], { where: `status = 'pending'` })
export class ConnectSessionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Index('ix_connect_sessions_profile')
  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ type: 'text' })
  platform: PlatformName;

  @Column({ type: 'text', default: 'pending' })
  status: ConnectSessionStatus;

  /** Where the person is sent when the flow ends; null = the hosted "connected" page. */
  @Column({ name: 'redirect_url', type: 'text', nullable: true })
  redirectUrl: string | null;

  /** Who created the session; events of the flow carry this actor. */
  @Column({ type: 'jsonb' })
  actor: Actor;

  /** The `token` of the hosted page URL (sealed); it also guards the page-selection form. */
  @Column({ name: 'page_token_enc', type: 'text' })
  pageTokenEnc: string;

  /** SHA-256 of the OAuth `state` in flight; cleared when the callback uses it (single use). */
  @Index('uq_connect_sessions_state', { unique: true, where: 'oauth_state_hash IS NOT NULL' })
  @Column({ name: 'oauth_state_hash', type: 'text', nullable: true })
  oauthStateHash: string | null;

  /**
   * SHA-256 of the nonce in the browser's connect cookie when the state was issued: only a callback
   * arriving with that cookie (the browser that opened the link) may use the state.
   */
  @Column({ name: 'browser_nonce_hash', type: 'text', nullable: true })
  browserNonceHash: string | null;

  @Column({ name: 'code_verifier_enc', type: 'text', nullable: true })
  codeVerifierEnc: string | null;

  /** Tokens and accounts of a grant covering several accounts, while the person picks (sealed JSON). */
  @Column({ name: 'pending_grant_enc', type: 'text', nullable: true })
  pendingGrantEnc: string | null;

  @Column({ name: 'account_ids', type: 'uuid', array: true, default: () => "'{}'" })
  accountIds: string[];

  @Column({ type: 'jsonb', nullable: true })
  error: ConnectSessionError | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
