import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { TikTokAdapter } from './tiktok.adapter';
import { TIKTOK_SIMULATOR } from './tiktok-sandbox.controller';

export const tiktokNetwork: NetworkDefinition<'tiktok'> = defineNetwork('tiktok', TikTokAdapter, {
  configKeys: { clientId: 'TIKTOK_CLIENT_KEY', clientSecret: 'TIKTOK_CLIENT_SECRET' },
  real: { apiBaseUrl: 'https://open.tiktokapis.com', authBaseUrl: 'https://www.tiktok.com' },
  // TikTok answers spam_risk_too_many_posts when "the daily post cap from the API is reached for
  // the current user" but publishes no figure; 15 Direct Posts per creator per day is the figure
  // integrators report. NETWORK_CAPS=tiktok.posts_per_day=<n> sets the one TikTok told you.
  // creator_info/query answers the same error once the cap is reached (read by publishingUsage).
  caps: [
    {
      name: 'posts_per_day',
      window: 'day_utc',
      limit: 15,
      scope: 'account',
      source: 'https://developers.tiktok.com/doc/content-posting-api-reference-direct-post',
    },
  ],
  simulator: TIKTOK_SIMULATOR,
});
