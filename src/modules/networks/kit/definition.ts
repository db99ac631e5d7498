import type { Provider, Type } from '@nestjs/common';
import type { AdapterEndpoints, PlatformAdapter } from './adapter';
import type { PlatformName } from '../platform-name';

export interface NetworkAppKeys {
  clientId: string;
  clientSecret: string;
}

/** Base URLs of a network: the real ones, or (in `sandbox`) paths relative to PUBLIC_BASE_URL. */
export type NetworkUrls = Pick<AdapterEndpoints, 'apiBaseUrl' | 'authBaseUrl' | 'uploadBaseUrl'>;

/**
 * Everything the service knows about one network, in its folder's `<net>.network.ts`:
 * where it lives (real and simulated), how its adapter is built, and its simulator's parts.
 * networks.ts lists one per PlatformName; the compiler rejects a missing one.
 */
export interface NetworkDefinition<Name extends string = PlatformName> {
  name: Name;
  /**
   * Env vars of the app's client id and secret: the registry reads them through AppConfig (unset =
   * `sandbox-<name>-app`/`-client` and `sandbox-<name>-secret`, which the sandbox accepts);
   * .env.example lists them with those values (networks.spec.ts checks).
   */
  configKeys: NetworkAppKeys;
  real: NetworkUrls;
  sandbox: NetworkUrls;
  create: (endpoints: AdapterEndpoints) => PlatformAdapter;
  /** The simulator under /sandbox/<name> (registered by SandboxModule). */
  simulator: { controllers: Type[]; providers: Provider[] };
}

/** The values a network app's credentials have when their env vars are unset (the sandbox accepts any). */
export function sandboxCredentials(name: string, keys: NetworkAppKeys): NetworkAppKeys {
  return {
    clientId: `sandbox-${name}-${keys.clientId.endsWith('_APP_ID') ? 'app' : 'client'}`,
    clientSecret: `sandbox-${name}-secret`,
  };
}
