import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { ThreadsAdapter } from './threads.adapter';
import { THREADS_SIMULATOR } from './threads-sandbox.controller';

export const threadsNetwork: NetworkDefinition<'threads'> = defineNetwork('threads', ThreadsAdapter, {
  configKeys: { clientId: 'THREADS_APP_ID', clientSecret: 'THREADS_APP_SECRET' },
  real: { apiBaseUrl: 'https://graph.threads.net/v1.0', authBaseUrl: 'https://threads.net/oauth/authorize' },
  simulator: THREADS_SIMULATOR,
});
