import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { LinkedInAdapter, LINKEDIN_CAPS } from './linkedin.adapter';
import { LinkedInSandboxController } from './linkedin-sandbox.controller';
import { LinkedInSandboxMediaController } from './linkedin-sandbox-media.controller';
import { LinkedInSandboxAnalyticsController } from './linkedin-sandbox-analytics.controller';
import { LinkedInSandbox } from './linkedin-sandbox.service';

const controllers = [LinkedInSandboxController, LinkedInSandboxMediaController, LinkedInSandboxAnalyticsController];

export const linkedinNetwork: NetworkDefinition<'linkedin'> = defineNetwork('linkedin', LinkedInAdapter, {
  configKeys: { clientId: 'LINKEDIN_CLIENT_ID', clientSecret: 'LINKEDIN_CLIENT_SECRET' },
  caps: LINKEDIN_CAPS,
  simulator: { controllers, providers: [LinkedInSandbox] },
});
