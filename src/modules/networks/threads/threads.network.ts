import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { ThreadsAdapter, THREADS_CAPS } from './threads.adapter';
import { THREADS_SIMULATOR } from './threads-sandbox';

export const threadsNetwork: NetworkDefinition<'threads'> = defineNetwork('threads', ThreadsAdapter, {
  configKeys: { clientId: 'THREADS_APP_ID', clientSecret: 'THREADS_APP_SECRET' },
  caps: THREADS_CAPS,
  simulator: THREADS_SIMULATOR,
});
