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

  /** Throws when `usage + adding` would exceed the plan's monthly post quota. */
  async assertPostQuota(
    manager: EntityManager,
    auth: Pick<AuthContext, 'plan' | 'workspaceId'>,
    adding = 1,
  ): Promise<void> {
    const limit = PLANS[auth.plan].quotas.posts_per_month;
    if (limit === null) return;
    const [row] = await manager.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1 AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`,
      [auth.workspaceId],
    );
    const usage = row?.n ?? 0;
    if (usage + adding > limit) {
      throw new ApiError('plan_limit', `The ${auth.plan} plan allows ${limit} posts per month.`, {
        entitlement: 'posts_per_month',
        usage,
        limit,
      });
    }
  }

  async assertProfileQuota(manager: EntityManager, auth: Pick<AuthContext, 'plan' | 'workspaceId'>): Promise<void> {
    const limit = PLANS[auth.plan].quotas.profiles;
    if (limit === null) return;
    const [row] = await manager.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM profiles WHERE workspace_id = $1 AND deleted_at IS NULL`,
      [auth.workspaceId],
    );
    const usage = row?.n ?? 0;
    if (usage + 1 > limit) {
      throw new ApiError('plan_limit', `The ${auth.plan} plan allows ${limit} profiles.`, {
        entitlement: 'profiles',
        usage,
        limit,
      });
    }
  }

  /** Keys made through the API (the operator CLI is not capped); serialised per workspace. */
  async assertKeyQuota(manager: EntityManager, auth: Pick<AuthContext, 'plan' | 'workspaceId'>): Promise<void> {
    await this.assertCount(
      manager,
      auth.plan,
      'api_keys',
      `keys:${auth.workspaceId}`,
      `SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1 AND revoked_at IS NULL`,
      [auth.workspaceId],
      'API keys (not revoked) per workspace',
    );
  }

  /** Subscriptions of one profile; serialised per profile. */
  async assertWebhookQuota(
    manager: EntityManager,
    auth: Pick<AuthContext, 'plan' | 'workspaceId'>,
    profileId: string,
  ): Promise<void> {
    await this.assertCount(
      manager,
      auth.plan,
      'webhooks_per_profile',
      `webhooks:${profileId}`,
      `SELECT count(*)::int AS n FROM webhook_subscriptions WHERE workspace_id = $1 AND profile_id = $2 AND deleted_at IS NULL`,
      [auth.workspaceId, profileId],
      'webhook subscriptions per profile',
    );
  }

  /** Counts under a transaction-scoped advisory lock, so two concurrent creations cannot both pass. */
  private async assertCount(
    manager: EntityManager,
    plan: PlanName,
    quota: Quota,
    lockKey: string,
    countSql: string,
    params: unknown[],
    what: string,
  ): Promise<void> {
    const limit = PLANS[plan].quotas[quota];
    if (limit === null) return;
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
    const [row] = await manager.query<{ n: number }[]>(countSql, params);
    const usage = row?.n ?? 0;
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
