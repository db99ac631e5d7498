import { Module } from '@nestjs/common';
import { FacebookSandboxController } from './facebook-sandbox.controller';
import { FacebookSandbox } from './facebook-sandbox.service';
import { InstagramSandboxController } from './instagram-sandbox.controller';
import { InstagramSandbox } from './instagram-sandbox.service';
import { LinkedInSandboxAnalyticsController } from './linkedin-sandbox-analytics.controller';
import { LinkedInSandboxMediaController } from './linkedin-sandbox-media.controller';
import { LinkedInSandboxController } from './linkedin-sandbox.controller';
import { LinkedInSandbox } from './linkedin-sandbox.service';
import { TikTokSandboxController } from './tiktok-sandbox.controller';
import { TikTokSandbox } from './tiktok-sandbox.service';
import { YouTubeSandboxDataController } from './youtube-sandbox-data.controller';
import { YouTubeSandboxController } from './youtube-sandbox.controller';
import { YouTubeSandbox } from './youtube-sandbox.service';
import { MetaContainers } from './meta-containers';
import { SandboxControlController } from './sandbox-control.controller';
import { SandboxOAuth } from './sandbox-oauth';
import { SandboxStore } from './sandbox-store';
import { ThreadsSandboxController } from './threads-sandbox.controller';
import { ThreadsSandbox } from './threads-sandbox.service';

/**
 * The simulated networks under /sandbox/<network>/… (404 unless SANDBOX_PLATFORMS is on).
 * Each network adds its controller here; the kit (store, OAuth, magic words, metrics) is shared.
 */
@Module({
  controllers: [
    SandboxControlController,
    FacebookSandboxController,
    InstagramSandboxController,
    ThreadsSandboxController,
    LinkedInSandboxController,
    LinkedInSandboxMediaController,
    LinkedInSandboxAnalyticsController,
    TikTokSandboxController,
    YouTubeSandboxController,
    YouTubeSandboxDataController,
    // @sandbox-controllers
  ],
  providers: [
    SandboxStore,
    SandboxOAuth,
    LinkedInSandbox,
    TikTokSandbox,
    YouTubeSandbox,
    FacebookSandbox,
    InstagramSandbox,
    MetaContainers,
    ThreadsSandbox,
  ],
  exports: [SandboxStore, SandboxOAuth],
})
export class SandboxModule {}
