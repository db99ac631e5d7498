import { DataSource } from 'typeorm';
import { SYSTEM_ACTOR } from '@/common/auth/auth-context';
import { EventEntity } from '@/common/outbox/event.entity';
import { issueApiKey } from '../keys/issue-api-key';
import { PlanName, TRIAL_DAYS } from '../plans/plans';
import { saveProfile } from '../profiles/save-profile';
import { UserEntity } from './user.entity';
import { WorkspaceEntity } from './workspace.entity';

export interface BootstrapInput {
  workspaceName: string;
  email: string;
  plan: PlanName;
  profileName?: string;
  permissions?: string[];
  rateLimitPerMinute?: number | null;
  rateLimitPerHour?: number | null;
  keyName?: string;
  /** false = the first key has no owner (cannot publish). */
  withOwner?: boolean;
}

export interface BootstrapResult {
  workspaceId: string;
  userId: string;
  profileId: string;
  keyId: string;
  apiKey: string;
}

/** Workspace + owner user + first profile + first key, in one transaction (operator CLI, tests). */
export async function bootstrapWorkspace(ds: DataSource, input: BootstrapInput): Promise<BootstrapResult> {
  return ds.transaction(async (m) => {
    const trialEndsAt = input.plan === 'trial' ? new Date(Date.now() + TRIAL_DAYS * 86400_000) : null;
    const workspace = await m.save(
      m.create(WorkspaceEntity, { name: input.workspaceName, plan: input.plan, trialEndsAt }),
    );
    const user = await m.save(
      m.create(UserEntity, { workspaceId: workspace.id, email: input.email.toLowerCase(), name: null, role: 'owner' }),
    );
    const profile = await saveProfile(m, {
      workspaceId: workspace.id,
      name: input.profileName ?? 'Default',
      description: null,
      externalId: null,
    });
    const { entity: key, secret: apiKey } = await issueApiKey(
      m,
      {
        workspaceId: workspace.id,
        name: input.keyName ?? 'First key',
        permissions: input.permissions ?? ['*'],
        homeProfileId: profile.id,
        ownerUserId: input.withOwner === false ? null : user.id,
        rateLimitPerMinute: input.rateLimitPerMinute ?? null,
        rateLimitPerHour: input.rateLimitPerHour ?? null,
      },
      { actor: SYSTEM_ACTOR, profileId: profile.id },
    );
    await m.save(
      m.create(EventEntity, {
        workspaceId: workspace.id,
        profileId: profile.id,
        type: 'workspace.created',
        actor: { type: 'system', id: null },
        data: {
          profileId: profile.id,
          workspaceId: workspace.id,
          plan: workspace.plan,
          ownerUserId: user.id,
          apiKeyId: key.id,
        },
        dispatchedAt: null,
      }),
    );
    return { workspaceId: workspace.id, userId: user.id, profileId: profile.id, keyId: key.id, apiKey };
  });
}
