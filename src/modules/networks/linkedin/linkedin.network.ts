import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { LinkedInAdapter } from './linkedin.adapter';
import { LinkedInSandboxController } from './linkedin-sandbox.controller';
import { LinkedInSandboxMediaController } from './linkedin-sandbox-media.controller';
import { LinkedInSandboxAnalyticsController } from './linkedin-sandbox-analytics.controller';
import { LinkedInSandbox } from './linkedin-sandbox.service';

const controllers = [LinkedInSandboxController, LinkedInSandboxMediaController, LinkedInSandboxAnalyticsController];

export const linkedinNetwork: NetworkDefinition<'linkedin'> = defineNetwork('linkedin', LinkedInAdapter, {
  configKeys: { clientId: 'LINKEDIN_CLIENT_ID', clientSecret: 'LINKEDIN_CLIENT_SECRET' },
  real: { apiBaseUrl: 'https://api.linkedin.com', authBaseUrl: 'https://www.linkedin.com/oauth/v2' },
  simulator: { controllers, providers: [LinkedInSandbox] },
});
