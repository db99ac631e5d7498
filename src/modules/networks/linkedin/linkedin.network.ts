import type { NetworkDefinition } from '../kit/definition';
import { LinkedInAdapter } from './linkedin.adapter';
import { LinkedInSandboxController } from './linkedin-sandbox.controller';
import { LinkedInSandboxMediaController } from './linkedin-sandbox-media.controller';
import { LinkedInSandboxAnalyticsController } from './linkedin-sandbox-analytics.controller';
import { LinkedInSandbox } from './linkedin-sandbox.service';

export const linkedinNetwork: NetworkDefinition<'linkedin'> = {
  name: 'linkedin',
  configKeys: { clientId: 'LINKEDIN_CLIENT_ID', clientSecret: 'LINKEDIN_CLIENT_SECRET' },
  real: { apiBaseUrl: 'https://api.linkedin.com', authBaseUrl: 'https://www.linkedin.com/oauth/v2' },
  sandbox: { apiBaseUrl: '/sandbox/linkedin', authBaseUrl: '/sandbox/linkedin/oauth/v2' },
  create: (endpoints) => new LinkedInAdapter(endpoints),
  simulator: {
    controllers: [LinkedInSandboxController, LinkedInSandboxMediaController, LinkedInSandboxAnalyticsController],
    providers: [LinkedInSandbox],
  },
};
