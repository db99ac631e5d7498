import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { ServiceRequest } from '../request/request-context';
import { RequestLogService } from './request-log.service';

/**
 * Records one row per authenticated /v1 request when its response finishes, refusals after
 * authentication included (429, 402, 403: under the key's home profile when no profile resolved).
 */
@Injectable()
export class RequestLogMiddleware implements NestMiddleware {
  constructor(private readonly logs: RequestLogService) {}

  use(req: ServiceRequest, res: Response, next: NextFunction): void {
    res.on('finish', () => {
      const auth = req.auth;
      const caller = auth
        ? { workspaceId: auth.workspaceId, profileId: auth.profileId, keyId: auth.keyId }
        : req.caller && {
            workspaceId: req.caller.workspaceId,
            profileId: req.caller.homeProfileId,
            keyId: req.caller.keyId,
          };
      if (!caller) return;
      this.logs.push({
        ...caller,
        requestId: req.id,
        method: req.method,
        path: req.originalUrl.split('?')[0] ?? req.originalUrl,
        status: res.statusCode,
        durationMs: Date.now() - (req.startedAt ?? Date.now()),
        createdAt: new Date(req.startedAt ?? Date.now()),
      });
    });
    next();
  }
}
