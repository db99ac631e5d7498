import type { NetworkDefinition } from '../kit/definition';
import { LINKEDIN_SIMULATOR } from './linkedin-sandbox.controller';
import { LinkedInAdapter } from './linkedin.adapter';

export const linkedinNetwork: NetworkDefinition = {
  name: 'linkedin',
  configKeys: { clientId: 'LINKEDIN_CLIENT_ID', clientSecret: 'LINKEDIN_CLIENT_SECRET' },
  real: { apiBaseUrl: 'https://api.linkedin.com', authBaseUrl: 'https://www.linkedin.com/oauth/v2' },
  sandbox: { apiBaseUrl: '/sandbox/linkedin', authBaseUrl: '/sandbox/linkedin/oauth/v2' },
  create: (endpoints) => new LinkedInAdapter(endpoints),
  simulator: LINKEDIN_SIMULATOR,
};
