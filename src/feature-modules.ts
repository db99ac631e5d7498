import type { Type } from '@nestjs/common';
import { AccountsModule } from './modules/accounts/accounts.module';
import { AnalyticsModule } from './modules/analytics/analytics.module';
import { CommentsModule } from './modules/comments/comments.module';
import { ConnectModule } from './modules/connect/connect.module';
import { AuditModule } from './modules/audit/audit.module';
import { HealthModule } from './modules/health/health.module';
import { KeyLookupModule } from './modules/keys/key-lookup';
import { KeysModule } from './modules/keys/keys.module';
import { LimitsModule } from './modules/limits/limits.module';
import { McpModule } from './modules/mcp/mcp.module';
import { MediaModule } from './modules/media/media.module';
import { PlansModule } from './modules/plans/plans.module';
import { NetworksModule } from '@/modules/networks/networks.module';
import { PublishingModule } from './modules/posts/publishing/publishing.module';
import { PostsModule } from './modules/posts/posts.module';
import { PolicyModule } from './modules/policy/policy.module';
import { ProfileLookupModule } from './modules/profiles/profile-lookup';
import { ProfilesModule } from './modules/profiles/profiles.module';
import { SandboxModule } from '@/modules/networks/sandbox.module';
import { WebhooksModule } from './modules/webhooks/webhooks.module';

/** Domain modules, in one list so each feature adds itself in one line. */
export const FEATURE_MODULES: Type[] = [
  PlansModule,
  NetworksModule,
  HealthModule,
  ProfilesModule,
  ProfileLookupModule,
  KeysModule,
  KeyLookupModule,
  PolicyModule,
  AuditModule,
  AccountsModule,
  ConnectModule,
  SandboxModule,
  McpModule,
  PostsModule,
  PublishingModule,
  LimitsModule,
  WebhooksModule,
  MediaModule,
  AnalyticsModule,
  CommentsModule,
];
