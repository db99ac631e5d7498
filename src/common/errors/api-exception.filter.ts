import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@/config/config';
import { redactUrl } from '../logging/redact-url';
import { ServiceRequest, newRequestId } from '../request/request-context';
import { ReplayedResponse } from '../idempotency/idempotency.interceptor';
import { isHostedPageMiss, sendHostedNotFound } from './hosted-not-found';
import { asErrorEnvelope, renderError, toApiError, wantsLegacyErrors } from './error-envelope';

/** Renders every failure (validation, unknown routes, body-parser errors, crashes) as the spec's envelope. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly config: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const req = http.getRequest<ServiceRequest>();
    const res = http.getResponse<Response>();
    sendError(exception, req, res, this.config.docsBaseUrl, this.logger);
  }
}

export function sendError(
  exception: unknown,
  req: ServiceRequest,
  res: Response,
  docsBaseUrl: string,
  logger: Logger,
): void {
  if (!req.id) req.id = newRequestId();
  if (exception instanceof ReplayedResponse) {
    sendReplay(exception, req, res);
    return;
  }
  const { error, unexpected } = toApiError(exception);
  // The log keeps the internals; the client gets the catalogue's generic message only.
  if (unexpected)
    logger.error(
      { err: exception, requestId: req.id },
      `Unhandled error on ${req.method} ${redactUrl(req.originalUrl)}`,
    );
  const rendered = renderError(error, {
    requestId: req.id,
    docsBaseUrl,
    legacy: wantsLegacyErrors(req.headers['service-error-format']),
  });
  if (res.headersSent) {
    res.end();
    return;
  }
  res.setHeader('X-Request-Id', req.id);
  if (isHostedPageMiss(req.method, req.originalUrl, rendered.status)) return sendHostedNotFound(res);
  // RFC 6750: a 401 names the scheme it wants.
  if (rendered.status === 401)
    res.setHeader(
      'WWW-Authenticate',
      error.code === 'authentication_required' ? 'Bearer' : 'Bearer error="invalid_token"',
    );
  for (const [k, v] of Object.entries(rendered.headers)) res.setHeader(k, v);
  res.status(rendered.status).json(rendered.body);
}

/**
 * A stored response sent again: same status and body. A stored error envelope is the one
 * exception to "byte for byte": its `error.requestId` is this request's (so it matches the
 * X-Request-Id header, as on every error) and `Original-Request-Id` names the first request;
 * under `Service-Error-Format: legacy` it is rendered in the legacy shape.
 */
function sendReplay(replay: ReplayedResponse, req: ServiceRequest, res: Response): void {
  req.idempotentReplay = true;
  res.setHeader('X-Request-Id', req.id);
  res.setHeader('Idempotent-Replayed', 'true');
  const envelope = asErrorEnvelope(replay.body);
  if (!envelope) {
    if (replay.rawBody !== undefined) res.status(replay.status).type('application/json').send(replay.rawBody);
    else res.status(replay.status).json(replay.body);
    return;
  }
  if (typeof envelope.error.requestId === 'string') res.setHeader('Original-Request-Id', envelope.error.requestId);
  if (wantsLegacyErrors(req.headers['service-error-format'])) {
    res.status(replay.status).json({ error: envelope.error.message, code: envelope.error.code });
    return;
  }
  res.status(replay.status).json({ ...envelope, error: { ...envelope.error, requestId: req.id } });
}
