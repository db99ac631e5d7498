import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { AuthCache } from './auth-cache';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';

/** Needs KEY_LOOKUP and PROFILE_LOOKUP (auth-lookup.ts), which the keys and profiles modules provide globally. */
@Global()
@Module({
  providers: [AuthCache, AuthService, RateLimitService, AuthGuard, { provide: APP_GUARD, useExisting: AuthGuard }],
  exports: [AuthCache, AuthService, AuthGuard, RateLimitService],
})
export class AuthModule {}
