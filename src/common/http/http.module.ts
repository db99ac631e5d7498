import { Module } from '@nestjs/common';
import { SsrfSafeAgent } from './ssrf-safe-agent';

/** Outbound HTTP to user-given URLs: import this module and inject SsrfSafeAgent (one Agent per app). */
@Module({ providers: [SsrfSafeAgent], exports: [SsrfSafeAgent] })
export class HttpOutModule {}
