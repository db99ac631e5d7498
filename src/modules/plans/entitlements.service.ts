import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '@/common/auth/auth-context';
import { ApiError } from '@/common/errors/api-error';
import { Feature, PLANS, PlanName, Quota } from './plans';

/** Plan features and quotas (decisions §3); a gated feature or exhausted quota is 403 plan_limit. */
@Injectable()
export class EntitlementsService {
  assertFeature(auth: Pick<AuthContext, 'plan'>, feature: Feature): void {
    if (!PLANS[auth.plan].features[feature]) {
      throw new ApiError('plan_limit', `The ${auth.plan} plan does not include ${feature.replace('_', ' ')}.`, {
        entitlement: feature,
        usage: 0,
        limit: 0,
      });
    }
  }

  /**
   * Throws plan_limit when one more would exceed the plan's quota. The quota's owner counts its own
   * table (`count`, skipped for an unlimited plan); with `lock`, the count runs under a
   * transaction-scoped advisory lock, so two concurrent creations cannot both pass.
   */
  async assertQuota(
    plan: PlanName,
    quota: Quota,
    what: string,
    count: () => Promise<number>,
    lock?: { manager: EntityManager; key: string },
  ): Promise<void> {
    const limit = PLANS[plan].quotas[quota];
    if (limit === null) return;
    if (lock) await lock.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lock.key]);
    const usage = await count();
    if (usage + 1 > limit) {
      throw new ApiError('plan_limit', `The ${plan} plan allows ${limit} ${what}.`, {
        entitlement: quota,
        usage,
        limit,
      });
    }
  }

  static planOf(name: string): PlanName {
    return name in PLANS ? (name as PlanName) : 'trial';
  }
}
