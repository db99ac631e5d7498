import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '../../config/config';
import { ServiceRequest, newRequestId } from '../request/request-context';
import { ReplayedResponse } from '../idempotency/idempotency.interceptor';
import { renderError, toApiError } from './error-envelope';

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

export function sendError(exception: unknown, req: ServiceRequest, res: Response, docsBaseUrl: string, logger: Logger): void {
  if (exception instanceof ReplayedResponse) {
    req.idempotentReplay = true;
    res.setHeader('Idempotent-Replayed', 'true');
    res.status(exception.status).json(exception.body);
    return;
  }
  const { error, unexpected } = toApiError(exception);
  if (unexpected) logger.error({ err: exception, requestId: req.id }, `Unhandled error on ${req.method} ${req.originalUrl}`);
  if (!req.id) req.id = newRequestId();
  const rendered = renderError(error, { requestId: req.id, docsBaseUrl, legacy: req.headers['service-error-format'] === 'legacy' });
  if (res.headersSent) return;
  res.setHeader('X-Request-Id', req.id);
  for (const [k, v] of Object.entries(rendered.headers)) res.setHeader(k, v);
  res.status(rendered.status).json(rendered.body);
}
