import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** A stored write, keyed by (API key, method, path, Idempotency-Key), kept 24 hours. */
@Entity({ name: 'idempotency_keys' })
@Index('uq_idempotency_scope', ['apiKeyId', 'method', 'path', 'key'], { unique: true })
export class IdempotencyKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'api_key_id', type: 'uuid' })
  apiKeyId: string;

  @Column({ type: 'text' })
  key: string;

  @Column({ type: 'text' })
  method: string;

  @Column({ type: 'text' })
  path: string;

  @Column({ name: 'request_hash', type: 'text' })
  requestHash: string;

  /** null while the first request is still running */
  @Column({ name: 'response_status', type: 'int', nullable: true })
  responseStatus: number | null;

  @Column({ name: 'response_body', type: 'jsonb', nullable: true })
  responseBody: unknown;

  /** A running request's claim lapses here (a crashed process must not hold the key forever). */
  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Index('ix_idempotency_expires')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
