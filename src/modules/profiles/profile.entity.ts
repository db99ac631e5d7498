import {
  Column,
  CreateDateColumn,
  DeleteDateColumn,
  Entity,
  Index,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';

export interface ProfileBranding {
  displayName: string | null;
  logoUrl: string | null;
  accentColor: string | null;
  supportUrl: string | null;
}

/** A profile owns connected accounts, posts and a policy; usually one customer of the platform. */
@Entity({ name: 'profiles' })
export class ProfileEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Index('ix_profiles_workspace')
  @Column({ name: 'workspace_id', type: 'uuid' })
  workspaceId: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'external_id', type: 'text', nullable: true })
  externalId: string | null;

  /** What hosted pages show for this profile (PATCH `branding`); null until set. */
  @Column({ type: 'jsonb', nullable: true })
  branding: ProfileBranding | null;

  /** The logo fetched from `branding.logoUrl`, served by this service (never loaded at read time). */
  @Column({ name: 'branding_logo', type: 'bytea', nullable: true, select: false })
  brandingLogo?: Buffer | null;

  @Column({ name: 'branding_logo_type', type: 'text', nullable: true })
  brandingLogoType: string | null;

  /** SHA-256 of the logo's bytes (hex); its first characters version the logo's URL. */
  @Column({ name: 'branding_logo_hash', type: 'text', nullable: true })
  brandingLogoHash: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt: Date | null;
}
