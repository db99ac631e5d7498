/** The plan a workspace is on (its definitions live in the plans module); carried by every AuthContext. */
export type PlanName = 'trial' | 'starter' | 'pro' | 'enterprise';
export const PLAN_NAMES: PlanName[] = ['trial', 'starter', 'pro', 'enterprise'];
