import { HttpException } from '@nestjs/common';
import { ApiError } from './api-error';
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

/** Maps anything thrown to an ApiError; unknown errors become internal_error (and are logged by the caller). */
export function toApiError(err: unknown): { error: ApiError; unexpected: boolean } {
  if (err instanceof ApiError) return { error: err, unexpected: false };
  const bp = err as BodyParserError;
  if (bp && typeof bp === 'object' && typeof bp.type === 'string') {
    if (bp.type === 'entity.too.large') return { error: new ApiError('payload_too_large'), unexpected: false };
    if (bp.type === 'entity.parse.failed') return { error: new ApiError('invalid_request', 'The request body is not valid JSON.'), unexpected: false };
    if (bp.type === 'encoding.unsupported' || bp.type === 'charset.unsupported') return { error: new ApiError('invalid_request', 'Unsupported body encoding.'), unexpected: false };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const response = err.getResponse();
    const text = typeof response === 'string' ? response : ((response as { message?: unknown }).message ?? err.message);
    const message = Array.isArray(text) ? text.join('; ') : String(text);
    switch (status) {
      case 404:
        return { error: new ApiError('not_found', message.startsWith('Cannot ') ? `Unrecognized request URL (${message.replace('Cannot ', '')}).` : message), unexpected: false };
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
      default:
        if (status >= 400 && status < 500) return { error: new ApiError('invalid_request', message), unexpected: false };
    }
  }
  return { error: new ApiError('internal_error'), unexpected: true };
}

/** Renders the spec's envelope (or the legacy one under `Service-Error-Format: legacy`). */
export function renderError(error: ApiError, opts: { requestId: string; docsBaseUrl: string; legacy: boolean }): RenderedError {
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

export function isRetryable(code: ErrorCode): boolean {
  return ERROR_CATALOGUE[code].retryable;
}
