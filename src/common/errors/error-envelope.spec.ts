import {
  BadRequestException,
  ForbiddenException,
  HttpException,
  NotFoundException,
  PayloadTooLargeException,
  UnauthorizedException,
} from '@nestjs/common';
import { ApiError } from './api-error';
import { ERROR_CATALOGUE, ERROR_CODES } from './error-catalogue';
import {
  asErrorEnvelope,
  isBackingServiceDown,
  isRetryable,
  renderError,
  toApiError,
  wantsLegacyErrors,
} from './error-envelope';

const opts = { requestId: 'req_abc123', docsBaseUrl: 'https://api.example.com/errors', legacy: false };

describe('renderError', () => {
  it('should render the envelope with code, message, docsUrl anchored at the code, requestId and a top-level message', () => {
    const r = renderError(new ApiError('not_found', 'No such profile.'), opts);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      error: {
        code: 'not_found',
        message: 'No such profile.',
        docsUrl: 'https://api.example.com/errors#not_found',
        requestId: 'req_abc123',
      },
      message: 'No such profile.',
    });
  });

  it('should include details only when the error has them', () => {
    const withDetails = renderError(
      new ApiError('plan_limit', undefined, { entitlement: 'profiles', usage: 2, limit: 2 }),
      opts,
    );
    expect((withDetails.body.error as Record<string, unknown>).details).toEqual({
      entitlement: 'profiles',
      usage: 2,
      limit: 2,
    });
    expect(renderError(new ApiError('internal_error'), opts).body.error).not.toHaveProperty('details');
  });

  it('should render the legacy shape { error: <message>, code } when asked', () => {
    const r = renderError(new ApiError('invalid_api_key'), { ...opts, legacy: true });
    expect(r.body).toEqual({ error: ERROR_CATALOGUE.invalid_api_key.message, code: 'invalid_api_key' });
    expect(r.status).toBe(401);
  });

  it('should carry the headers of the error (Retry-After)', () => {
    const r = renderError(new ApiError('rate_limit_exceeded', undefined, undefined, { 'Retry-After': '12' }), opts);
    expect(r.headers).toEqual({ 'Retry-After': '12' });
  });

  it('should use the catalogue status and default message for every code', () => {
    for (const code of ERROR_CODES) {
      const e = new ApiError(code);
      expect(e.status).toBe(ERROR_CATALOGUE[code].status);
      expect(e.message).toBe(ERROR_CATALOGUE[code].message);
      expect(renderError(e, opts).status).toBe(ERROR_CATALOGUE[code].status);
    }
  });
});

describe('toApiError', () => {
  const parserError = (type: string, status: number) => Object.assign(new Error(type), { type, status, expose: true });

  it('should map body-parser failures: malformed JSON → invalid_request, too large → payload_too_large', () => {
    expect(toApiError(parserError('entity.parse.failed', 400))).toMatchObject({
      unexpected: false,
      error: { code: 'invalid_request', message: 'The request body is not valid JSON.' },
    });
    expect(toApiError(parserError('entity.too.large', 413)).error.code).toBe('payload_too_large');
    expect(toApiError(parserError('charset.unsupported', 415)).error.code).toBe('invalid_request');
    expect(toApiError(parserError('request.aborted', 400)).error.code).toBe('invalid_request');
  });

  it("should map Nest's HTTP exceptions to catalogue codes", () => {
    expect(toApiError(new NotFoundException('Cannot GET /v1/nope')).error).toMatchObject({
      code: 'not_found',
      message: 'Unrecognized request URL (GET /v1/nope).',
    });
    expect(toApiError(new PayloadTooLargeException()).error.code).toBe('payload_too_large');
    expect(toApiError(new UnauthorizedException()).error.code).toBe('authentication_required');
    expect(toApiError(new ForbiddenException()).error.code).toBe('insufficient_permission');
    expect(toApiError(new BadRequestException(['a is bad', 'b is bad'])).error).toMatchObject({
      code: 'invalid_request',
      message: 'a is bad; b is bad',
    });
    expect(toApiError(new HttpException('teapot', 418)).error.code).toBe('invalid_request');
  });

  it('should turn anything else into internal_error with the generic message (no internals)', () => {
    const r = toApiError(new TypeError("Cannot read properties of undefined (reading 'secret')"));
    expect(r.unexpected).toBe(true);
    expect(r.error.code).toBe('internal_error');
    expect(r.error.message).toBe(ERROR_CATALOGUE.internal_error.message);
    expect(toApiError('a string').error.code).toBe('internal_error');
    expect(toApiError(undefined).error.code).toBe('internal_error');
    const pgUnique = Object.assign(new Error('duplicate key value violates unique constraint "uq_x"'), {
      code: '23505',
    });
    expect(toApiError(pgUnique).error.code).toBe('internal_error');
  });

  it('should turn an unreachable Postgres or Redis into 503 service_unavailable', () => {
    expect(
      toApiError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })).error.code,
    ).toBe('service_unavailable');
    expect(
      toApiError(
        Object.assign(new Error('Reached the max retries per request limit'), { name: 'MaxRetriesPerRequestError' }),
      ).error.code,
    ).toBe('service_unavailable');
    const queryFailed = Object.assign(new Error('terminating connection due to administrator command'), {
      driverError: { code: '57P01' },
    });
    expect(toApiError(queryFailed).error.code).toBe('service_unavailable');
    expect(toApiError(new Error('Connection terminated unexpectedly')).error.code).toBe('service_unavailable');
    expect(isBackingServiceDown(Object.assign(new Error('too many clients'), { code: '53300' }))).toBe(true);
    expect(isBackingServiceDown(Object.assign(new Error('syntax'), { code: '42601' }))).toBe(false);
  });

  it('should pass ApiErrors through untouched', () => {
    const e = new ApiError('insufficient_permission', 'needs posts:write', { required: 'posts:write' });
    expect(toApiError(e)).toEqual({ error: e, unexpected: false });
  });
});

describe('helpers', () => {
  it('should recognise the legacy header in any case', () => {
    expect(wantsLegacyErrors('legacy')).toBe(true);
    expect(wantsLegacyErrors(' Legacy ')).toBe(true);
    expect(wantsLegacyErrors(['LEGACY'])).toBe(true);
    expect(wantsLegacyErrors('v2')).toBe(false);
    expect(wantsLegacyErrors(undefined)).toBe(false);
  });

  it('should recognise a stored error envelope and nothing else', () => {
    expect(asErrorEnvelope({ error: { code: 'not_found', message: 'x' }, message: 'x' })).toBeDefined();
    expect(asErrorEnvelope({ profile: { id: '1' } })).toBeUndefined();
    expect(asErrorEnvelope({ error: 'legacy text', code: 'x' })).toBeUndefined();
    expect(asErrorEnvelope(null)).toBeUndefined();
  });

  it('should mark exactly the server-side codes as retryable', () => {
    expect(ERROR_CODES.filter(isRetryable).sort()).toEqual([
      'idempotency_key_in_use',
      'internal_error',
      'rate_limit_exceeded',
      'service_unavailable',
    ]);
  });
});
