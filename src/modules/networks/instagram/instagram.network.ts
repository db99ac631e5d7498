import type { NetworkDefinition } from '../kit/definition';
import { INSTAGRAM_GRAPH_VERSION, InstagramAdapter } from './instagram.adapter';
import { InstagramSandboxController } from './instagram-sandbox.controller';
import { InstagramSandbox } from './instagram-sandbox.service';

export const instagramNetwork: NetworkDefinition<'instagram'> = {
  name: 'instagram',
  configKeys: { clientId: 'INSTAGRAM_APP_ID', clientSecret: 'INSTAGRAM_APP_SECRET' },
  real: {
    apiBaseUrl: `https://graph.facebook.com/${INSTAGRAM_GRAPH_VERSION}`,
    authBaseUrl: `https://www.facebook.com/${INSTAGRAM_GRAPH_VERSION}/dialog/oauth`,
  },
  sandbox: {
    apiBaseUrl: `/sandbox/instagram/${INSTAGRAM_GRAPH_VERSION}`,
    authBaseUrl: `/sandbox/instagram/${INSTAGRAM_GRAPH_VERSION}/dialog/oauth`,
  },
  create: (endpoints) => new InstagramAdapter(endpoints),
  simulator: { controllers: [InstagramSandboxController], providers: [InstagramSandbox] },
};
