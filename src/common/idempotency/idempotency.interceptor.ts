import {
  CallHandler,
  ExecutionContext,
  HttpStatus,
  Injectable,
  Logger,
  NestInterceptor,
  RequestMethod,
} from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { Observable, from, lastValueFrom } from 'rxjs';
import { AppConfig } from '@/config/config';
import { ApiError } from '../errors/api-error';
import { renderError, toApiError } from '../errors/error-envelope';
import type { ServiceRequest } from '../request/request-context';
import { IdempotencyService } from './idempotency.service';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Thrown to send a stored response again; the exception filter writes it as is. */
export class ReplayedResponse extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** The stored JSON text, when kept verbatim (a replay then repeats the original bytes). */
    readonly rawBody?: string,
  ) {
    super('replayed response');
  }
}

/**
 * `Idempotency-Key` on any authenticated write: the first request runs, later ones with the
 * same key (per API key, method and path) get its stored status and body. 5xx and 429 are not
 * stored, so a retry runs again.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyService,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const req = context.switchToHttp().getRequest<ServiceRequest>();
    const raw = req.headers['idempotency-key'];
    if (!req.auth || !WRITES.has(req.method) || raw === undefined) return next.handle();
    const key = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (!key || key.length > 255)
      throw new ApiError('invalid_request', 'Idempotency-Key must be 1 to 255 characters.', {
        field: 'Idempotency-Key',
      });
    return from(this.run(context, next, req, key));
  }

  private async run(context: ExecutionContext, next: CallHandler, req: ServiceRequest, key: string): Promise<unknown> {
    const scope = { apiKeyId: req.auth!.keyId, method: req.method, path: req.path, key };
    const claim = await this.store.claim(scope, this.store.hashRequest(req.method, req.path, req.query, req.body));
    if (claim.kind === 'replay') throw new ReplayedResponse(claim.status, claim.body, claim.rawBody);
    let body: unknown;
    try {
      body = await lastValueFrom(next.handle(), { defaultValue: undefined });
    } catch (err) {
      const { error } = toApiError(err);
      if (error.status >= 500 || error.status === 429 || error.code === 'idempotency_key_in_use') {
        // Not stored: the client retries with the same key and the request runs again.
        await this.store
          .release(claim.id)
          .catch((e: Error) => this.logger.warn({ err: e.message }, 'Could not release an idempotency key'));
      } else {
        const rendered = renderError(error, { requestId: req.id, docsBaseUrl: this.config.docsBaseUrl, legacy: false });
        await this.store
          .complete(claim.id, rendered.status, rendered.body)
          .catch((e: Error) => this.logger.warn({ err: e.message }, 'Could not store an idempotent error'));
      }
      throw err;
    }
    // The change is committed: failing to store its response must not release the key (a
    // retry would repeat the effect); the claim then lapses as "in use" until its lock expires.
    await this.store
      .complete(claim.id, successStatus(context), body === undefined ? null : body)
      .catch((e: Error) =>
        this.logger.error({ err: e.message, requestId: req.id }, 'Could not store an idempotent response'),
      );
    return body;
  }
}

function successStatus(context: ExecutionContext): number {
  const pinned = (context.switchToHttp().getResponse<PinnableResponse>().locals ?? {})[PINNED_STATUS];
  if (typeof pinned === 'number') return pinned;
  const handler = context.getHandler();
  const explicit = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
  if (explicit) return explicit;
  const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
  return method === RequestMethod.POST ? HttpStatus.CREATED : HttpStatus.OK;
}

interface PinnableResponse {
  locals?: Record<string, unknown>;
  statusCode: number;
  status(code: number): unknown;
}

const PINNED_STATUS = 'pinnedSuccessStatus';

/**
 * For a handler whose success status depends on the request (a dry run answers 200, a creation
 * 201): call it with the body computed, just before returning it. Nest's reply then keeps this
 * status instead of the route's, and an Idempotency-Key replays it.
 */
export function pinSuccessStatus(res: PinnableResponse, status: number): void {
  res.statusCode = status;
  res.locals = { ...(res.locals ?? {}), [PINNED_STATUS]: status };
  const original = res.status.bind(res);
  res.status = (code: number) => (code >= 300 ? original(code) : res);
}
