import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { FacebookAdapter, FACEBOOK_CAPS } from './facebook.adapter';
import { FacebookSandboxController } from './facebook-sandbox.controller';
import { FacebookSandbox } from './facebook-sandbox.service';

/** Facebook Pages: the Graph API, with Facebook Login. */
export const facebookNetwork: NetworkDefinition<'facebook'> = defineNetwork('facebook', FacebookAdapter, {
  configKeys: { clientId: 'FACEBOOK_APP_ID', clientSecret: 'FACEBOOK_APP_SECRET' },
  caps: FACEBOOK_CAPS,
  simulator: { controllers: [FacebookSandboxController], providers: [FacebookSandbox] },
});
