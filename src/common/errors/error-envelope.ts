import { HttpException } from '@nestjs/common';
import { ApiError, isApiError } from './api-error';
import { ERROR_CATALOGUE, ErrorCode } from './error-catalogue';

export interface RenderedError {
  status: number;
  code: ErrorCode;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

interface BodyParserError {
  type?: string;
  status?: number;
  expose?: boolean;
}

/** Postgres error classes meaning "the database is not there" (connection exceptions, shutdown, overload). */
const PG_UNAVAILABLE = /^(08|57P0[1-3]|53300)/;
const NET_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** True for failures of a backing store (Postgres, Redis) rather than of the code: 503, retryable. */
export function isBackingServiceDown(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; name?: unknown; message?: unknown; driverError?: unknown; cause?: unknown };
  if (
    typeof e.code === 'string' &&
    (NET_UNAVAILABLE.has(e.code) || (e.code.length === 5 && PG_UNAVAILABLE.test(e.code)))
  )
    return true;
  if (e.name === 'MaxRetriesPerRequestError') return true; // ioredis gave up reaching Redis
  const message = typeof e.message === 'string' ? e.message : '';
  if (
    /^Connection is closed\.?$|Connection terminated|timeout exceeded when trying to connect|Stream isn't writeable/i.test(
      message,
    )
  )
    return true;
  return (
    (e.driverError !== undefined && isBackingServiceDown(e.driverError)) ||
    (e.cause !== undefined && e.cause !== err && isBackingServiceDown(e.cause))
  );
}

/**
 * The one rule for a body that cannot be read (body-parser errors, a Content-Encoding that does
 * not match the bytes, a broken stream, bad JSON, an unknown charset): 400 invalid_request on
 * the field `body`, or 413 when it is too large. Never a 5xx: the request is at fault.
 */
export function bodyReadError(err: unknown): ApiError {
  if (isApiError(err)) return err;
  const bp = (err ?? {}) as BodyParserError & { code?: unknown };
  if (bp.type === 'entity.too.large' || bp.status === 413) return new ApiError('payload_too_large');
  if (bp.type === 'entity.parse.failed')
    return new ApiError('invalid_request', 'The request body is not valid JSON.', { field: 'body' });
  if (bp.type === 'encoding.unsupported' || bp.type === 'charset.unsupported')
    return new ApiError('invalid_request', 'Unsupported body encoding.', { field: 'body' });
  if (typeof bp.code === 'string' && bp.code.startsWith('Z_'))
    return new ApiError('invalid_request', 'The request body does not match its Content-Encoding.', {
      field: 'body',
    });
  return new ApiError('invalid_request', 'The request body could not be read.', { field: 'body' });
}

/** Maps anything thrown to an ApiError; unknown errors become internal_error (and are logged by the caller). */
export function toApiError(err: unknown): { error: ApiError; unexpected: boolean } {
  if (isApiError(err)) return { error: err, unexpected: false };
  const bp = err as BodyParserError;
  if (bp && typeof bp === 'object' && typeof bp.type === 'string' && !(err instanceof HttpException))
    return { error: bodyReadError(err), unexpected: false };
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const response = err.getResponse();
    const text = typeof response === 'string' ? response : ((response as { message?: unknown }).message ?? err.message);
    const message = Array.isArray(text) ? text.join('; ') : typeof text === 'string' ? text : JSON.stringify(text);
    switch (status) {
      case 404:
        return {
          error: new ApiError(
            'not_found',
            message.startsWith('Cannot ') ? `Unrecognized request URL (${message.replace('Cannot ', '')}).` : message,
          ),
          unexpected: false,
        };
      case 413:
        return { error: new ApiError('payload_too_large'), unexpected: false };
      case 415:
        return { error: new ApiError('unsupported_media_type', message), unexpected: false };
      case 429:
        return { error: new ApiError('rate_limit_exceeded'), unexpected: false };
      case 401:
        return { error: new ApiError('authentication_required'), unexpected: false };
      case 403:
        return { error: new ApiError('insufficient_permission', message, { required: 'unknown' }), unexpected: false };
      case 503:
        return { error: new ApiError('service_unavailable'), unexpected: false };
      default:
        if (status >= 400 && status < 500)
          return { error: new ApiError('invalid_request', message), unexpected: false };
    }
  }
  if (isBackingServiceDown(err)) return { error: new ApiError('service_unavailable'), unexpected: true };
  return { error: new ApiError('internal_error'), unexpected: true };
}

/** True when the caller asked for the legacy body (`Service-Error-Format: legacy`, any case). */
export function wantsLegacyErrors(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  return typeof value === 'string' && value.trim().toLowerCase() === 'legacy';
}

/** Renders the spec's envelope (or the legacy one under `Service-Error-Format: legacy`). */
export function renderError(
  error: ApiError,
  opts: { requestId: string; docsBaseUrl: string; legacy: boolean },
): RenderedError {
  const headers = { ...error.headers };
  if (opts.legacy) {
    return { status: error.status, code: error.code, headers, body: { error: error.message, code: error.code } };
  }
  const inner: Record<string, unknown> = {
    code: error.code,
    message: error.message,
    docsUrl: `${opts.docsBaseUrl}#${error.code}`,
    requestId: opts.requestId,
  };
  if (error.details !== undefined) inner.details = error.details;
  return { status: error.status, code: error.code, headers, body: { error: inner, message: error.message } };
}

/** The envelope of a stored (idempotent) response, when it is one. */
export function asErrorEnvelope(
  body: unknown,
):
  | { error: { code: string; message: string; requestId?: string } & Record<string, unknown>; message: string }
  | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const error = (body as { error?: unknown }).error;
  if (!error || typeof error !== 'object' || typeof (error as { code?: unknown }).code !== 'string') return undefined;
  return body as ReturnType<typeof asErrorEnvelope>;
}

export function isRetryable(code: ErrorCode): boolean {
  return ERROR_CATALOGUE[code].retryable;
}
