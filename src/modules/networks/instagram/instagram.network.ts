import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { InstagramAdapter, INSTAGRAM_CAPS } from './instagram.adapter';
import { INSTAGRAM_SIMULATOR } from './instagram-sandbox';

/** Instagram professional accounts: the Instagram API with Facebook Login, on graph.facebook.com. */
export const instagramNetwork: NetworkDefinition<'instagram'> = defineNetwork('instagram', InstagramAdapter, {
  configKeys: { clientId: 'INSTAGRAM_APP_ID', clientSecret: 'INSTAGRAM_APP_SECRET' },
  caps: INSTAGRAM_CAPS,
  simulator: INSTAGRAM_SIMULATOR,
});
