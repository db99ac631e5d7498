import {
  applyDecorators,
  ArgumentsHost,
  CanActivate,
  Catch,
  Controller,
  ExceptionFilter,
  Injectable,
  UseFilters,
  UseGuards,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/common/auth/decorators';
import { ApiError } from '@/common/errors/api-error';
import { AppConfig } from '@/config/config';

/** Sent as-is with `status`, not in our API envelope: each network has its own error format. */
export class SandboxHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`sandbox error ${status}`);
  }
}

/** The same error with a Retry-After header (seconds), as networks send with a 429. */
export function withRetryAfter(err: SandboxHttpError, seconds: number): SandboxHttpError {
  return new SandboxHttpError(err.status, err.body, { ...err.headers, 'Retry-After': String(seconds) });
}

/** Thrown by simulators whose answer must be lost (#sandbox-unknown-outcome): the connection is dropped. */
export class SandboxLostAnswer extends SandboxHttpError {
  constructor() {
    super(0, null);
  }
}

@Catch(SandboxHttpError)
class SandboxErrorFilter implements ExceptionFilter<SandboxHttpError> {
  catch(err: SandboxHttpError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (err instanceof SandboxLostAnswer) res.socket?.destroy();
    else res.status(err.status).set(err.headers).json(err.body);
  }
}

@Injectable()
class SandboxEnabledGuard implements CanActivate {
  constructor(private readonly config: AppConfig) {}
  canActivate(): boolean {
    // Answer exactly like an unknown route when the sandbox is off.
    if (!this.config.sandbox.enabled) throw ApiError.notFound('route');
    return true;
  }
}

/** `@SandboxController('facebook')` → routes under /sandbox/facebook, public, not in OpenAPI, 404 when off. */
export function SandboxController(network: string): ClassDecorator {
  return applyDecorators(
    Controller(`sandbox/${network}`),
    Public(),
    ApiExcludeController(),
    UseGuards(SandboxEnabledGuard),
    UseFilters(SandboxErrorFilter),
  );
}
