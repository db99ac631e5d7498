/** The error envelope every failing call answers: `{ error: { code, message, docsUrl, requestId, details? }, message }`. */
export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    docsUrl?: string;
    requestId?: string;
    details?: Record<string, unknown>;
  };
  message?: string;
}

/**
 * A failed API call. Branch on `code` (stable), never on `message`. `status` is the HTTP status
 * (0 when the service could not be reached at all: `code` is then `network_error`).
 */
export class SpsApiError extends Error {
  override readonly name = 'SpsApiError';

  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly requestId: string | null,
    readonly details: Record<string, unknown> | undefined = undefined,
    readonly docsUrl: string | undefined = undefined,
    /** Seconds the service asked to wait (429, and 409 idempotency_key_in_use). */
    readonly retryAfter: number | undefined = undefined,
  ) {
    super(message);
  }

  /** True for failures the service documents as retryable (429, 5xx, a key still in use, the network). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500 || this.code === 'idempotency_key_in_use';
  }

  /** `code: message (requestId)`, the CLI's error line. */
  override toString(): string {
    return `${this.code}: ${this.message}${this.requestId ? ` (${this.requestId})` : ''}`;
  }

  static fromResponse(response: Response, body: unknown): SpsApiError {
    const headerId = response.headers.get('x-request-id');
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    if (isEnvelope(body)) {
      const e = body.error;
      return new SpsApiError(
        e.code,
        e.message,
        response.status,
        e.requestId ?? headerId,
        e.details,
        e.docsUrl,
        retryAfter === undefined ? undefined : retryAfter / 1000,
      );
    }
    const code =
      response.status >= 500 ? 'internal_error' : response.status === 429 ? 'rate_limit_exceeded' : 'http_error';
    return new SpsApiError(code, `HTTP ${response.status} ${response.statusText}`.trim(), response.status, headerId);
  }

  static network(cause: unknown): SpsApiError {
    const error = new SpsApiError(
      'network_error',
      `The service could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`,
      0,
      null,
    );
    (error as { cause?: unknown }).cause = cause;
    return error;
  }
}

export function isEnvelope(body: unknown): body is ErrorEnvelope {
  const e = (body as { error?: unknown } | null)?.error as { code?: unknown; message?: unknown } | undefined;
  return typeof e === 'object' && e !== null && typeof e.code === 'string' && typeof e.message === 'string';
}

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
