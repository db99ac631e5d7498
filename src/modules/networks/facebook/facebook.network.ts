import type { NetworkDefinition } from '../kit/definition';
import { FACEBOOK_GRAPH_VERSION, FacebookAdapter } from './facebook.adapter';
import { FacebookSandboxController } from './facebook-sandbox.controller';
import { FacebookSandbox } from './facebook-sandbox.service';

export const facebookNetwork: NetworkDefinition<'facebook'> = {
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
  simulator: { controllers: [FacebookSandboxController], providers: [FacebookSandbox] },
};
