import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { ServiceRequest } from '../request/request-context';
import { RequestLogService } from './request-log.service';

/** Records one row per authenticated /v1 request when its response finishes. */
@Injectable()
export class RequestLogMiddleware implements NestMiddleware {
  constructor(private readonly logs: RequestLogService) {}

  use(req: ServiceRequest, res: Response, next: NextFunction): void {
    res.on('finish', () => {
      const auth = req.auth;
      if (!auth) return;
      this.logs.push({
        workspaceId: auth.workspaceId,
        profileId: auth.profileId,
        requestId: req.id,
        method: req.method,
        path: req.originalUrl.split('?')[0] ?? req.originalUrl,
        status: res.statusCode,
        durationMs: Date.now() - req.startedAt,
        keyId: auth.keyId,
        createdAt: new Date(req.startedAt),
      });
    });
    next();
  }
}
