import type { NetworkDefinition } from '../kit/definition';
import { TikTokAdapter } from './tiktok.adapter';
import { TikTokSandboxController } from './tiktok-sandbox.controller';
import { TikTokSandbox } from './tiktok-sandbox.service';

export const tiktokNetwork: NetworkDefinition<'tiktok'> = {
  name: 'tiktok',
  configKeys: { clientId: 'TIKTOK_CLIENT_KEY', clientSecret: 'TIKTOK_CLIENT_SECRET' },
  real: { apiBaseUrl: 'https://open.tiktokapis.com', authBaseUrl: 'https://www.tiktok.com' },
  sandbox: { apiBaseUrl: '/sandbox/tiktok', authBaseUrl: '/sandbox/tiktok' },
  create: (endpoints) => new TikTokAdapter(endpoints),
  simulator: { controllers: [TikTokSandboxController], providers: [TikTokSandbox] },
};
