import type { NetworkDefinition } from '../kit/definition';
import { YouTubeAdapter } from './youtube.adapter';
import { YouTubeSandboxController } from './youtube-sandbox.controller';
import { YouTubeSandboxDataController } from './youtube-sandbox-data.controller';
import { YouTubeSandbox } from './youtube-sandbox.service';

export const youtubeNetwork: NetworkDefinition<'youtube'> = {
  name: 'youtube',
  configKeys: { clientId: 'YOUTUBE_CLIENT_ID', clientSecret: 'YOUTUBE_CLIENT_SECRET' },
  real: {
    apiBaseUrl: 'https://www.googleapis.com',
    authBaseUrl: 'https://accounts.google.com/o/oauth2/v2',
    uploadBaseUrl: 'https://www.googleapis.com',
  },
  sandbox: {
    apiBaseUrl: '/sandbox/youtube',
    authBaseUrl: '/sandbox/youtube/o/oauth2/v2',
    uploadBaseUrl: '/sandbox/youtube',
  },
  create: (endpoints) => new YouTubeAdapter(endpoints),
  simulator: { controllers: [YouTubeSandboxController, YouTubeSandboxDataController], providers: [YouTubeSandbox] },
};
