import type { NetworkDefinition } from '../kit/definition';
import { ThreadsAdapter } from './threads.adapter';
import { ThreadsSandboxController } from './threads-sandbox.controller';
import { ThreadsSandbox } from './threads-sandbox.service';

export const threadsNetwork: NetworkDefinition<'threads'> = {
  name: 'threads',
  configKeys: { clientId: 'THREADS_APP_ID', clientSecret: 'THREADS_APP_SECRET' },
  real: { apiBaseUrl: 'https://graph.threads.net/v1.0', authBaseUrl: 'https://threads.net/oauth/authorize' },
  sandbox: { apiBaseUrl: '/sandbox/threads/v1.0', authBaseUrl: '/sandbox/threads/oauth/authorize' },
  create: (endpoints) => new ThreadsAdapter(endpoints),
  simulator: { controllers: [ThreadsSandboxController], providers: [ThreadsSandbox] },
};
