import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { FACEBOOK_GRAPH_VERSION as V, FacebookAdapter } from './facebook.adapter';
import { FacebookSandboxController } from './facebook-sandbox.controller';
import { FacebookSandbox } from './facebook-sandbox.service';

/** Facebook Pages: the Graph API, with Facebook Login. */
export const facebookNetwork: NetworkDefinition<'facebook'> = defineNetwork('facebook', FacebookAdapter, {
  configKeys: { clientId: 'FACEBOOK_APP_ID', clientSecret: 'FACEBOOK_APP_SECRET' },
  real: { apiBaseUrl: `https://graph.facebook.com/${V}`, authBaseUrl: `https://www.facebook.com/${V}/dialog/oauth` },
  simulator: { controllers: [FacebookSandboxController], providers: [FacebookSandbox] },
});
