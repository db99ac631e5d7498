import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { LinkedInAdapter } from './linkedin.adapter';
import { LINKEDIN_SIMULATOR } from './linkedin-sandbox.controller';

export const linkedinNetwork: NetworkDefinition<'linkedin'> = defineNetwork('linkedin', LinkedInAdapter, {
  configKeys: { clientId: 'LINKEDIN_CLIENT_ID', clientSecret: 'LINKEDIN_CLIENT_SECRET' },
  real: { apiBaseUrl: 'https://api.linkedin.com', authBaseUrl: 'https://www.linkedin.com/oauth/v2' },
  // LinkedIn limits the calls of each member per application per day, reset at midnight UTC, and
  // shows each app its figures in the Developer Portal (Analytics tab) rather than publishing
  // them; 150 posts per member per day is the figure peers document (Ayrshare's LinkedIn page).
  // NETWORK_CAPS=linkedin.posts_per_day=<n> sets your app's.
  caps: [
    {
      name: 'posts_per_day',
      window: 'day_utc',
      limit: 150,
      scope: 'account',
      source: 'https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits',
    },
  ],
  simulator: LINKEDIN_SIMULATOR,
});
