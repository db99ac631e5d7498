import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { LinkedInAdapter, LINKEDIN_CAPS } from './linkedin.adapter';
import { LINKEDIN_SIMULATOR } from './linkedin-sandbox';

export const linkedinNetwork: NetworkDefinition<'linkedin'> = defineNetwork('linkedin', LinkedInAdapter, {
  configKeys: { clientId: 'LINKEDIN_CLIENT_ID', clientSecret: 'LINKEDIN_CLIENT_SECRET' },
  caps: LINKEDIN_CAPS,
  simulator: LINKEDIN_SIMULATOR,
});
