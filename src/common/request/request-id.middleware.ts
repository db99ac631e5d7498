import type { NextFunction, Response } from 'express';
import { ServiceRequest, requestIdFrom } from './request-context';

/** First middleware: every response carries X-Request-Id, error envelopes echo it. */
export function requestIdMiddleware(req: ServiceRequest, res: Response, next: NextFunction): void {
  req.id = requestIdFrom(req.headers['x-request-id']);
  req.startedAt = Date.now();
  res.setHeader('X-Request-Id', req.id);
  next();
}
