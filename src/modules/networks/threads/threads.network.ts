import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { ThreadsAdapter } from './threads.adapter';
import { THREADS_SIMULATOR } from './threads-sandbox.controller';

export const threadsNetwork: NetworkDefinition<'threads'> = defineNetwork('threads', ThreadsAdapter, {
  configKeys: { clientId: 'THREADS_APP_ID', clientSecret: 'THREADS_APP_SECRET' },
  real: { apiBaseUrl: 'https://graph.threads.net/v1.0', authBaseUrl: 'https://threads.net/oauth/authorize' },
  // "Threads profiles are limited to 250 API-published posts within a 24-hour moving period.
  // Carousels count as a single post." (enforced on threads_publish; read with threads_publishing_limit)
  caps: [
    {
      name: 'posts_per_24h',
      window: 'rolling_24h',
      limit: 250,
      scope: 'account',
      source: 'https://developers.facebook.com/docs/threads/overview/#posts',
    },
  ],
  simulator: THREADS_SIMULATOR,
});
