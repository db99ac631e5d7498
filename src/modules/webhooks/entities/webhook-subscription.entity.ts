import {
  Column,
  CreateDateColumn,
  DeleteDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export type WebhookScope = 'profile' | 'account';

/**
 * A receiver URL and the event types it wants. Belongs to the profile it was created in;
 * scope `account` receives the events of every profile of the workspace. The signing secret is
 * stored sealed (SecretBox) and only ever shown at creation and rotation.
 */
@Entity({ name: 'webhook_subscriptions' })
@Index('ix_webhook_subscriptions_profile', ['profileId', 'createdAt'])
@Index('ix_webhook_subscriptions_workspace_active', ['workspaceId'], {
  where: 'is_active AND deleted_at IS NULL',
})
export class WebhookSubscriptionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  /** The profile the subscription was created in (its owner). */
  @Column({ name: 'profile_id', type: 'uuid' })
  profileId: string;

  @Column({ type: 'text' })
  url: string;

  /** Event types, or `['*']` for every type including future ones. */
  @Column({ type: 'text', array: true })
  events: string[];

  @Column({ type: 'text', default: 'profile' })
  scope: WebhookScope;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  /** SecretBox ciphertext of the `whsec_…` signing secret. */
  @Column({ name: 'secret_enc', type: 'text' })
  secretEnc: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  /** Soft delete: pending deliveries find it gone and are cancelled; history stays. */
  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
