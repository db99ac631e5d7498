import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { InstagramAdapter, INSTAGRAM_CAPS } from './instagram.adapter';
import { InstagramSandboxController } from './instagram-sandbox.controller';
import { InstagramSandbox } from './instagram-sandbox.service';

/** Instagram professional accounts: the Instagram API with Facebook Login, on graph.facebook.com. */
export const instagramNetwork: NetworkDefinition<'instagram'> = defineNetwork('instagram', InstagramAdapter, {
  configKeys: { clientId: 'INSTAGRAM_APP_ID', clientSecret: 'INSTAGRAM_APP_SECRET' },
  caps: INSTAGRAM_CAPS,
  simulator: { controllers: [InstagramSandboxController], providers: [InstagramSandbox] },
});
