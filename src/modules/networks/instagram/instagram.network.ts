import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { INSTAGRAM_GRAPH_VERSION as V, InstagramAdapter } from './instagram.adapter';
import { INSTAGRAM_SIMULATOR } from './instagram-sandbox.controller';

/** Instagram professional accounts: the Instagram API with Facebook Login, on graph.facebook.com. */
export const instagramNetwork: NetworkDefinition<'instagram'> = defineNetwork('instagram', InstagramAdapter, {
  configKeys: { clientId: 'INSTAGRAM_APP_ID', clientSecret: 'INSTAGRAM_APP_SECRET' },
  real: { apiBaseUrl: `https://graph.facebook.com/${V}`, authBaseUrl: `https://www.facebook.com/${V}/dialog/oauth` },
  // "Instagram accounts are limited to 100 API-published posts within a 24-hour moving period.
  // Carousels count as a single post." (enforced on media_publish; read with content_publishing_limit)
  caps: [
    {
      name: 'posts_per_24h',
      window: 'rolling_24h',
      limit: 100,
      scope: 'account',
      source: 'https://developers.facebook.com/docs/instagram-platform/content-publishing/#rate-limit',
    },
  ],
  simulator: INSTAGRAM_SIMULATOR,
});
