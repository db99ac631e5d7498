import { Injectable, Logger, NestMiddleware } from '@nestjs/common';
import express, { NextFunction, Response } from 'express';
import { sendError } from '@/common/errors/api-exception.filter';
import type { ServiceRequest } from '@/common/request/request-context';
import { AppConfig } from '@/config/config';
import { LOCAL_MAX_UPLOAD_BYTES } from './media-types';

const UPLOAD_PATH = '/media/upload/';

/**
 * The upload PUT (`PUT /media/upload/…`) takes the file as the raw body (any Content-Type; the
 * service checks it against the signed one). JSON routes keep the global express.json parser.
 * Parser failures (an oversized body: 413 payload_too_large) are answered in the error envelope
 * here, as Express error handlers registered before the routes cannot see them.
 */
@Injectable()
export class RawUploadBodyMiddleware implements NestMiddleware {
  private readonly logger = new Logger('MediaUpload');
  private readonly parse = express.raw({ type: () => true, limit: LOCAL_MAX_UPLOAD_BYTES });

  constructor(private readonly config: AppConfig) {}

  use(req: ServiceRequest, res: Response, next: NextFunction): void {
    if (req.method !== 'PUT' || !req.originalUrl.startsWith(UPLOAD_PATH)) return next();
    this.parse(req, res, (err?: unknown) =>
      err ? sendError(err, req, res, this.config.docsBaseUrl, this.logger) : next(),
    );
  }
}
