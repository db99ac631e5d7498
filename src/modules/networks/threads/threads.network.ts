import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { ThreadsAdapter, THREADS_CAPS } from './threads.adapter';
import { ThreadsSandboxController } from './threads-sandbox.controller';
import { ThreadsSandbox } from './threads-sandbox.service';

export const threadsNetwork: NetworkDefinition<'threads'> = defineNetwork('threads', ThreadsAdapter, {
  configKeys: { clientId: 'THREADS_APP_ID', clientSecret: 'THREADS_APP_SECRET' },
  caps: THREADS_CAPS,
  simulator: { controllers: [ThreadsSandboxController], providers: [ThreadsSandbox] },
});
