import { CallHandler, ExecutionContext, HttpStatus, Injectable, NestInterceptor, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { Observable, from, lastValueFrom } from 'rxjs';
import { AppConfig } from '../../config/config';
import { ApiError } from '../errors/api-error';
import { renderError, toApiError } from '../errors/error-envelope';
import type { ServiceRequest } from '../request/request-context';
import { IdempotencyService } from './idempotency.service';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Thrown to send a stored response again; the exception filter writes it as is. */
export class ReplayedResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/**
 * `Idempotency-Key` on any authenticated write: the first request runs, later ones with the
 * same key (per API key, method and path) get its stored status and body. 5xx and 429 are not
 * stored, so a retry runs again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly store: IdempotencyService,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<ServiceRequest>();
    const raw = req.headers['idempotency-key'];
    if (!req.auth || !WRITES.has(req.method) || raw === undefined) return next.handle();
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!key || key.length > 255) throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 characters.', { field: 'Idempotency-Key' });
    return from(this.run(context, next, req, key));
  }

  private async run(context: ExecutionContext, next: CallHandler, req: ServiceRequest, key: string): Promise<unknown> {
    const scope = { apiKeyId: req.auth!.keyId, method: req.method, path: req.path, key };
    const claim = await this.store.claim(scope, this.store.hashRequest(req.method, req.path, req.query, req.body));
    if (claim.kind === 'replay') throw new ReplayedResponse(claim.status, claim.body);
    try {
      const body = await lastValueFrom(next.handle(), { defaultValue: undefined });
      await this.store.complete(claim.id, successStatus(context), body === undefined ? null : JSON.parse(JSON.stringify(body)));
      return body;
    } catch (err) {
      const { error } = toApiError(err);
      if (error.status >= 500 || error.status === HttpStatus.TOO_MANY_REQUESTS || error.code === 'idempotency_key_in_use') {
        await this.store.release(claim.id);
      } else {
        const rendered = renderError(error, { requestId: req.id, docsBaseUrl: this.config.docsBaseUrl, legacy: false });
        await this.store.complete(claim.id, rendered.status, rendered.body);
      }
      throw err;
    }
  }
}

function successStatus(context: ExecutionContext): number {
  const handler = context.getHandler();
  const explicit = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
  if (explicit) return explicit;
  const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  return method === RequestMethod.POST ? HttpStatus.CREATED : HttpStatus.OK;
}
