import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { TikTokAdapter, TIKTOK_CAPS } from './tiktok.adapter';
import { TikTokSandboxController } from './tiktok-sandbox.controller';
import { TikTokSandbox } from './tiktok-sandbox.service';

export const tiktokNetwork: NetworkDefinition<'tiktok'> = defineNetwork('tiktok', TikTokAdapter, {
  configKeys: { clientId: 'TIKTOK_CLIENT_KEY', clientSecret: 'TIKTOK_CLIENT_SECRET' },
  caps: TIKTOK_CAPS,
  simulator: { controllers: [TikTokSandboxController], providers: [TikTokSandbox] },
});
