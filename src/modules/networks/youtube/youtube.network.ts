import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { YouTubeAdapter } from './youtube.adapter';
import { YouTubeSandboxController } from './youtube-sandbox.controller';
import { YouTubeSandboxDataController } from './youtube-sandbox-data.controller';
import { YouTubeSandbox } from './youtube-sandbox.service';

const GOOGLE_APIS = 'https://www.googleapis.com';

export const youtubeNetwork: NetworkDefinition<'youtube'> = defineNetwork('youtube', YouTubeAdapter, {
  configKeys: { clientId: 'YOUTUBE_CLIENT_ID', clientSecret: 'YOUTUBE_CLIENT_SECRET' },
  real: { apiBaseUrl: GOOGLE_APIS, authBaseUrl: 'https://accounts.google.com/o/oauth2/v2', uploadBaseUrl: GOOGLE_APIS },
  simulator: { controllers: [YouTubeSandboxController, YouTubeSandboxDataController], providers: [YouTubeSandbox] },
});
