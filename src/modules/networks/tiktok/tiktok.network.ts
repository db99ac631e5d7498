import type { NetworkDefinition } from '../kit/definition';
import { TIKTOK_SIMULATOR } from './tiktok-sandbox.controller';
import { TikTokAdapter } from './tiktok.adapter';

export const tiktokNetwork: NetworkDefinition = {
  name: 'tiktok',
  configKeys: { clientId: 'TIKTOK_CLIENT_KEY', clientSecret: 'TIKTOK_CLIENT_SECRET' },
  real: { apiBaseUrl: 'https://open.tiktokapis.com', authBaseUrl: 'https://www.tiktok.com' },
  sandbox: { apiBaseUrl: '/sandbox/tiktok', authBaseUrl: '/sandbox/tiktok' },
  create: (endpoints) => new TikTokAdapter(endpoints),
  simulator: TIKTOK_SIMULATOR,
};
