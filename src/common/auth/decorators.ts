import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension } from '@nestjs/swagger';
import { ApiErrorResponses } from '../errors/api-error-responses.decorator';
import type { ErrorCode } from '../errors/error-catalogue';
import type { ServiceRequest } from '../request/request-context';
import type { AuthContext } from './auth-context';
import type { Permission } from './permissions';

export const PERMISSION_KEY = 'sps:permission';
export const PUBLIC_KEY = 'sps:public';

export interface RouteAuthOptions {
  /** Extra error codes this route can answer, for the OpenAPI document. */
  errors?: ErrorCode[];
}

/**
 * The one decorator every API route carries: the permission it needs, bearer security and the
 * error responses common to authenticated routes. The global guard denies routes without it.
 */
export function RequirePermission(
  permission: Permission,
  options: RouteAuthOptions = {},
): MethodDecorator & ClassDecorator {
  return applyDecorators(
    SetMetadata(PERMISSION_KEY, permission),
    ApiBearerAuth('bearer'),
    ApiExtension('x-required-permission', permission),
    ApiErrorResponses(
      'authentication_required',
      'invalid_api_key',
      'api_key_expired',
      'insufficient_permission',
      'profile_not_accessible',
      'invalid_profile_id',
      'rate_limit_exceeded',
      'internal_error',
      ...(options.errors ?? []),
    ),
  );
}

/** Routes reachable without a key (health, docs, hosted pages, sandbox). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(PUBLIC_KEY, true);

export const CurrentAuth = createParamDecorator((_data: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<ServiceRequest>();
  if (!req.auth) throw new Error('CurrentAuth used on a public route');
  return req.auth;
});
