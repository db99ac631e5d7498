import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { FacebookAdapter, FACEBOOK_CAPS } from './facebook.adapter';
import { FACEBOOK_SIMULATOR } from './facebook-sandbox';

/** Facebook Pages: the Graph API, with Facebook Login. */
export const facebookNetwork: NetworkDefinition<'facebook'> = defineNetwork('facebook', FacebookAdapter, {
  configKeys: { clientId: 'FACEBOOK_APP_ID', clientSecret: 'FACEBOOK_APP_SECRET' },
  caps: FACEBOOK_CAPS,
  simulator: FACEBOOK_SIMULATOR,
});
