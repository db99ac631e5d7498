import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { YouTubeAdapter } from './youtube.adapter';
import { YOUTUBE_SIMULATOR } from './youtube-sandbox.controller';

const GOOGLE_APIS = 'https://www.googleapis.com';

export const youtubeNetwork: NetworkDefinition<'youtube'> = defineNetwork('youtube', YouTubeAdapter, {
  configKeys: { clientId: 'YOUTUBE_CLIENT_ID', clientSecret: 'YOUTUBE_CLIENT_SECRET' },
  real: { apiBaseUrl: GOOGLE_APIS, authBaseUrl: 'https://accounts.google.com/o/oauth2/v2', uploadBaseUrl: GOOGLE_APIS },
  // "Projects that enable the YouTube Data API have a default quota allocation of … 100
  // videos.insert calls … Daily quotas reset at midnight Pacific Time": one bucket for the whole
  // Google Cloud project, so every YouTube account of this service shares it.
  caps: [
    {
      name: 'uploads_per_day',
      window: 'day_pacific',
      limit: 100,
      scope: 'app',
      source: 'https://developers.google.com/youtube/v3/determine_quota_cost',
    },
  ],
  simulator: YOUTUBE_SIMULATOR,
});
