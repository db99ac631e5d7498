import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { AppConfig } from '@/config/config';
import { ApiError } from '../errors/api-error';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import type { ServiceRequest } from '../request/request-context';
import { AuthService, AuthenticatedKey } from './auth.service';
import { PERMISSION_KEY, PUBLIC_KEY } from './decorators';
import { hasPermission, Permission } from './permissions';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The global guard: bearer key → rate limit → permission → trial → profile. Routes must carry
 * @RequirePermission or @Public; anything else is denied.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly rateLimit: RateLimitService,
    private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_KEY, targets)) return true;
    const required = this.reflector.getAllAndOverride<Permission | undefined>(PERMISSION_KEY, targets);
    const req = context.switchToHttp().getRequest<ServiceRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    await this.authenticateRequest(req, res, required);
    return true;
  }

  /**
   * Runs before the body is read (create-app.ts): the key behind the request (401 otherwise, so a
   * request without a valid key is refused before its body is judged) and, with `rateLimit`, its
   * rate limit and RateLimit headers, so every later answer (a malformed body's 400 included)
   * carries them.
   */
  async identify(req: ServiceRequest, res: Response, opts: { rateLimit: boolean }): Promise<void> {
    const found = await this.bearer(req);
    if (opts.rateLimit) {
      await this.applyRateLimit(found, res);
      req.identified = found;
    }
  }

  private async bearer(req: ServiceRequest): Promise<AuthenticatedKey> {
    const header = req.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match?.[1]) throw new ApiError('authentication_required');
    const found = await this.auth.authenticate(match[1]);
    req.caller = { workspaceId: found.key.workspaceId, keyId: found.key.id, homeProfileId: found.key.homeProfileId };
    return found;
  }

  /** Shared with the MCP endpoint, which authenticates per HTTP request too. */
  async authenticateRequest(req: ServiceRequest, res: Response, required: Permission | undefined): Promise<void> {
    let found = req.identified;
    if (!found) {
      found = await this.bearer(req);
      await this.applyRateLimit(found, res);
    }
    if (!required)
      throw new ApiError('insufficient_permission', 'This route is not open to API keys.', { required: 'unknown' });
    if (!hasPermission(found.key.permissions, required)) {
      throw new ApiError('insufficient_permission', `This API key lacks the '${required}' permission.`, { required });
    }
    const { workspace, key } = found;
    if (
      workspace.plan === 'trial' &&
      workspace.trialEndsAt &&
      workspace.trialEndsAt.getTime() < Date.now() &&
      !READ_METHODS.has(req.method)
    ) {
      throw new ApiError('trial_expired');
    }
    const profileId = await this.resolveProfile(req, found);
    req.auth = {
      requestId: req.id,
      workspaceId: workspace.id,
      plan: workspace.plan,
      trialEndsAt: workspace.trialEndsAt,
      keyId: key.id,
      permissions: key.permissions,
      profileIds: key.profileIds,
      accountIds: key.accountIds,
      ownerUserId: key.ownerUserId,
      maxPostsPerDay: key.maxPostsPerDay,
      homeProfileId: key.homeProfileId,
      profileId,
    };
  }

  private async applyRateLimit({ key }: AuthenticatedKey, res: Response): Promise<void> {
    const decision = await this.rateLimit.consume(`key:${key.id}`, [
      { limit: key.rateLimitPerMinute ?? this.config.rateLimit.perMinute, windowSeconds: 60 },
      { limit: key.rateLimitPerHour ?? this.config.rateLimit.perHour, windowSeconds: 3600 },
    ]);
    res.setHeader('RateLimit-Limit', String(decision.limit));
    res.setHeader('RateLimit-Remaining', String(decision.remaining));
    res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
    res.setHeader('RateLimit-Policy', `${decision.limit};w=${decision.windowSeconds}`);
    if (!decision.allowed) {
      throw new ApiError('rate_limit_exceeded', undefined, undefined, {
        'Retry-After': String(decision.retryAfterSeconds),
      });
    }
  }

  private async resolveProfile(req: ServiceRequest, { key }: AuthenticatedKey): Promise<string> {
    const fromQuery = (req.query as Record<string, unknown>)?.profileId;
    const body = req.body as Record<string, unknown> | undefined;
    const fromBody = body && typeof body === 'object' && !Array.isArray(body) ? body.profileId : undefined;
    const supplied = fromQuery !== undefined ? fromQuery : fromBody;
    if (supplied !== undefined && supplied !== null && typeof supplied !== 'string')
      throw new ApiError('invalid_profile_id');
    const profileId = typeof supplied === 'string' && supplied !== '' ? supplied : key.homeProfileId;
    if (!(await this.auth.canReachProfile(key, profileId))) {
      throw new ApiError('profile_not_accessible', `Profile '${profileId}' is not accessible with this API key.`);
    }
    return profileId;
  }
}
