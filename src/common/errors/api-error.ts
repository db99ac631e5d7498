import { ERROR_CATALOGUE, ErrorCode, ErrorDetails } from './error-catalogue';

/** The only exception modules throw for an expected failure. */
export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: number;

  constructor(
    readonly code: C,
    message?: string,
    readonly details?: ErrorDetails<C>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? ERROR_CATALOGUE[code].message);
    this.status = ERROR_CATALOGUE[code].status;
  }

  static invalid(field: string, message: string): ApiError<'invalid_request'> {
    return new ApiError('invalid_request', message, { field });
  }

  static notFound(what = 'resource', id?: string): ApiError<'not_found'> {
    return new ApiError('not_found', id ? `No such ${what}: '${id}'.` : `No such ${what}.`);
  }
}

/** `instanceof ApiError` narrows to `ApiError<any>`; this guard keeps the code typed. */
export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
