/** Plans are code-level configuration (decisions §3), not a billing system. */
export type PlanName = 'trial' | 'starter' | 'pro' | 'enterprise';
export const PLAN_NAMES: PlanName[] = ['trial', 'starter', 'pro', 'enterprise'];

export type Feature = 'hosted_connect' | 'webhooks';
export type Quota = 'posts_per_month' | 'profiles';

export interface PlanDefinition {
  features: Record<Feature, boolean>;
  /** null = unlimited */
  quotas: Record<Quota, number | null>;
}

export const PLANS: Record<PlanName, PlanDefinition> = {
  trial: { features: { hosted_connect: true, webhooks: true }, quotas: { posts_per_month: 100, profiles: 2 } },
  starter: { features: { hosted_connect: false, webhooks: false }, quotas: { posts_per_month: 1000, profiles: 5 } },
  pro: { features: { hosted_connect: true, webhooks: true }, quotas: { posts_per_month: 10000, profiles: 50 } },
  enterprise: { features: { hosted_connect: true, webhooks: true }, quotas: { posts_per_month: null, profiles: null } },
};

export const TRIAL_DAYS = 14;
