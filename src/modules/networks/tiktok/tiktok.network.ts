import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { TikTokAdapter, TIKTOK_CAPS } from './tiktok.adapter';
import { TIKTOK_SIMULATOR } from './tiktok-sandbox';

export const tiktokNetwork: NetworkDefinition<'tiktok'> = defineNetwork('tiktok', TikTokAdapter, {
  configKeys: { clientId: 'TIKTOK_CLIENT_KEY', clientSecret: 'TIKTOK_CLIENT_SECRET' },
  caps: TIKTOK_CAPS,
  simulator: TIKTOK_SIMULATOR,
});
