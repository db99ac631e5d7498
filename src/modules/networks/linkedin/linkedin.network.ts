import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { LinkedInAdapter } from './linkedin.adapter';
import { LINKEDIN_SIMULATOR } from './linkedin-sandbox.controller';

export const linkedinNetwork: NetworkDefinition<'linkedin'> = defineNetwork('linkedin', LinkedInAdapter, {
  configKeys: { clientId: 'LINKEDIN_CLIENT_ID', clientSecret: 'LINKEDIN_CLIENT_SECRET' },
  real: { apiBaseUrl: 'https://api.linkedin.com', authBaseUrl: 'https://www.linkedin.com/oauth/v2' },
  simulator: LINKEDIN_SIMULATOR,
});
