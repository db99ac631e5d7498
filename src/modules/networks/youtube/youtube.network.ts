import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { YouTubeAdapter, YOUTUBE_CAPS } from './youtube.adapter';
import { YOUTUBE_SIMULATOR } from './youtube-sandbox';

export const youtubeNetwork: NetworkDefinition<'youtube'> = defineNetwork('youtube', YouTubeAdapter, {
  configKeys: { clientId: 'YOUTUBE_CLIENT_ID', clientSecret: 'YOUTUBE_CLIENT_SECRET' },
  caps: YOUTUBE_CAPS,
  simulator: YOUTUBE_SIMULATOR,
});
