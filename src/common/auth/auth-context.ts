import type { Actor } from '../outbox/event.entity';
import type { PlanName } from './plan-name';

/** Who is calling, resolved once per request by the auth guard and passed to every service call. */
export interface AuthContext {
  requestId: string;
  workspaceId: string;
  plan: PlanName;
  trialEndsAt: Date | null;
  keyId: string;
  permissions: string[];
  /** null = every profile of the workspace */
  profileIds: string[] | null;
  /** null = no restriction */
  accountIds: string[] | null;
  ownerUserId: string | null;
  maxPostsPerDay: number | null;
  homeProfileId: string;
  /** The profile this request acts on: `profileId` from query/body, else the key's home profile. */
  profileId: string;
}

export function actorOf(auth: AuthContext): Actor {
  return { type: 'api_key', id: auth.keyId, userId: auth.ownerUserId };
}

export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };
