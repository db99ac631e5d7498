import type { NetworkDefinition } from '../kit/definition';
import { FACEBOOK_GRAPH_VERSION, FacebookAdapter } from './facebook.adapter';
import { FACEBOOK_SIMULATOR } from './facebook-sandbox.controller';

export const facebookNetwork: NetworkDefinition = {
  name: 'facebook',
  configKeys: { clientId: 'FACEBOOK_APP_ID', clientSecret: 'FACEBOOK_APP_SECRET' },
  real: {
    apiBaseUrl: `https://graph.facebook.com/${FACEBOOK_GRAPH_VERSION}`,
    authBaseUrl: `https://www.facebook.com/${FACEBOOK_GRAPH_VERSION}/dialog/oauth`,
  },
  sandbox: {
    apiBaseUrl: `/sandbox/facebook/${FACEBOOK_GRAPH_VERSION}`,
    authBaseUrl: `/sandbox/facebook/${FACEBOOK_GRAPH_VERSION}/dialog/oauth`,
  },
  create: (endpoints) => new FacebookAdapter(endpoints),
  simulator: FACEBOOK_SIMULATOR,
};
