/** Plans are code-level configuration (decisions §3), not a billing system. */
import type { PlanName } from '@/common/auth/plan-name';

export { PLAN_NAMES, type PlanName } from '@/common/auth/plan-name';

export type Feature = 'hosted_connect' | 'webhooks';
export type Quota = 'posts_per_month' | 'profiles' | 'api_keys' | 'webhooks_per_profile';

export interface PlanDefinition {
  features: Record<Feature, boolean>;
  /**
   * null = unlimited. api_keys: keys of the workspace not revoked (expired ones count until
   * revoked); webhooks_per_profile: subscriptions of one profile not deleted.
   */
  quotas: Record<Quota, number | null>;
}

export const PLANS: Record<PlanName, PlanDefinition> = {
  trial: {
    features: { hosted_connect: true, webhooks: true },
    quotas: { posts_per_month: 100, profiles: 2, api_keys: 10, webhooks_per_profile: 5 },
  },
  starter: {
    features: { hosted_connect: false, webhooks: false },
    quotas: { posts_per_month: 1000, profiles: 5, api_keys: 25, webhooks_per_profile: 0 },
  },
  pro: {
    features: { hosted_connect: true, webhooks: true },
    quotas: { posts_per_month: 10000, profiles: 50, api_keys: 250, webhooks_per_profile: 25 },
  },
  // Fan-out caps stay finite on every plan: they protect the other tenants, not the price list.
  enterprise: {
    features: { hosted_connect: true, webhooks: true },
    quotas: { posts_per_month: null, profiles: null, api_keys: 2500, webhooks_per_profile: 100 },
  },
};

export const TRIAL_DAYS = 14;
