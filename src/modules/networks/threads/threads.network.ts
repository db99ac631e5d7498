import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { ThreadsAdapter } from './threads.adapter';
import { ThreadsSandboxController } from './threads-sandbox.controller';
import { ThreadsSandbox } from './threads-sandbox.service';

export const threadsNetwork: NetworkDefinition<'threads'> = defineNetwork('threads', ThreadsAdapter, {
  configKeys: { clientId: 'THREADS_APP_ID', clientSecret: 'THREADS_APP_SECRET' },
  real: { apiBaseUrl: 'https://graph.threads.net/v1.0', authBaseUrl: 'https://threads.net/oauth/authorize' },
  simulator: { controllers: [ThreadsSandboxController], providers: [ThreadsSandbox] },
});
