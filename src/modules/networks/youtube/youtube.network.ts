import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { YouTubeAdapter, YOUTUBE_CAPS } from './youtube.adapter';
import { YouTubeSandboxController } from './youtube-sandbox.controller';
import { YouTubeSandboxDataController } from './youtube-sandbox-data.controller';
import { YouTubeSandbox } from './youtube-sandbox.service';

export const youtubeNetwork: NetworkDefinition<'youtube'> = defineNetwork('youtube', YouTubeAdapter, {
  configKeys: { clientId: 'YOUTUBE_CLIENT_ID', clientSecret: 'YOUTUBE_CLIENT_SECRET' },
  caps: YOUTUBE_CAPS,
  simulator: { controllers: [YouTubeSandboxController, YouTubeSandboxDataController], providers: [YouTubeSandbox] },
});
