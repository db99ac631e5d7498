import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { TikTokAdapter } from './tiktok.adapter';
import { TIKTOK_SIMULATOR } from './tiktok-sandbox.controller';

export const tiktokNetwork: NetworkDefinition<'tiktok'> = defineNetwork('tiktok', TikTokAdapter, {
  configKeys: { clientId: 'TIKTOK_CLIENT_KEY', clientSecret: 'TIKTOK_CLIENT_SECRET' },
  real: { apiBaseUrl: 'https://open.tiktokapis.com', authBaseUrl: 'https://www.tiktok.com' },
  simulator: TIKTOK_SIMULATOR,
});
