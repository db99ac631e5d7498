import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeyEntity } from '@/modules/keys/api-key.entity';
import { ProfileEntity } from '@/modules/profiles/profile.entity';
import { WorkspaceEntity } from '@/modules/workspaces/workspace.entity';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { AuthCache } from './auth-cache';
import { AuthGuard } from './auth.guard';
import { AuthService } from './auth.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity, WorkspaceEntity, ProfileEntity])],
  providers: [AuthCache, AuthService, RateLimitService, AuthGuard, { provide: APP_GUARD, useExisting: AuthGuard }],
  exports: [AuthCache, AuthService, AuthGuard, RateLimitService],
})
export class AuthModule {}
