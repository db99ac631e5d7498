import { EntityManager } from 'typeorm';
import { ProfileEntity } from './profile.entity';

export type NewProfile = Pick<ProfileEntity, 'workspaceId' | 'name' | 'description' | 'externalId'>;

/** Inserts a profile inside the caller's transaction (the API and a new workspace's first profile). */
export function saveProfile(m: EntityManager, profile: NewProfile): Promise<ProfileEntity> {
  return m.save(m.create(ProfileEntity, profile));
}
