import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * `pending` (queued or in flight) → `succeeded` | `failed` (an attempt failed, another is
 * scheduled at `nextAttemptAt`) → … → `abandoned` (no attempt left) | `cancelled` (the
 * subscription was paused or deleted when an attempt came up).
 */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'abandoned', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The stored excerpt of the receiver's response body. */
export const RESPONSE_BODY_LIMIT = 2000;

/** One event × one subscription. Its id is the envelope `id`, stable across attempts. */
@Entity({ name: 'webhook_deliveries' })
@Index('uq_webhook_deliveries_subscription_event', ['subscriptionId', 'eventId'], { unique: true })
@Index('ix_webhook_deliveries_subscription_created', ['subscriptionId', 'createdAt'])
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Index('ix_webhook_deliveries_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ name: 'subscription_id', type: 'uuid' })
  subscriptionId: string;

  /** The outbox event; null for synthetic test events. The fan-out finds an event's pending deliveries by it. */
  @Index('ix_webhook_deliveries_event')
  @Column({ name: 'event_id', type: 'uuid', nullable: true })
  eventId: string | null;

  @Column({ type: 'text' })
  type: string;

  /** Snapshot of the envelope's `data` (always holds profileId). */
  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  /** The envelope's `createdAt`: when the event happened. */
  @Column({ name: 'event_created_at', type: 'timestamptz' })
  eventCreatedAt: Date;

  @Column({ type: 'text', default: 'pending' })
  status: DeliveryStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'response_code', type: 'int', nullable: true })
  responseCode: number | null;

  /** First 2000 bytes of the receiver's last response body. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody: string | null;

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
