import type { Provider, Type } from '@nestjs/common';
import type { AdapterEndpoints, PlatformAdapter } from './adapter';
import type { PublishingCap } from './caps';
import type { PlatformName } from '../platform-name';

export type NetworkAppKeys = Pick<AdapterEndpoints, 'clientId' | 'clientSecret'>;

/** Base URLs of a network (its simulator serves each under /sandbox/<name> + the URL's path). */
export type NetworkUrls = Pick<AdapterEndpoints, 'apiBaseUrl' | 'authBaseUrl'>;

/**
 * Everything the service knows about one network, in its folder's `<net>.network.ts`: its
 * app's env vars, where it lives, how its adapter is built, and its simulator's parts.
 * networks.ts lists them; PlatformName is that list's keys.
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
  create: (endpoints: AdapterEndpoints) => PlatformAdapter;
  /**
   * The publishing caps the network documents (figure and source cited); the first one is the
   * cap the adapter's `publishingUsage` reads from the network where it offers it.
   */
  caps: PublishingCap[];
  /** The simulator under /sandbox/<name> (registered by SandboxModule). */
  simulator: { controllers: Type[]; providers: Provider[] };
}

/** An adapter class: built from its endpoints, it knows the network's real base URLs (`static real`). */
export interface AdapterClass {
  new (endpoints: AdapterEndpoints): PlatformAdapter;
  readonly real: NetworkUrls;
}

/** A network's definition: its name, its adapter class (and through it the real URLs) and the rest. */
export function defineNetwork<Name extends string>(
  name: Name,
  adapter: AdapterClass,
  parts: Omit<NetworkDefinition<Name>, 'name' | 'create' | 'real'>,
): NetworkDefinition<Name> {
  return { name, ...parts, real: adapter.real, create: (endpoints) => new adapter(endpoints) };
}

/** The URLs of a network's simulator: `base` + /sandbox/<name> + each real URL's path. */
export function sandboxUrls(name: string, real: NetworkUrls, base: string): NetworkUrls {
  const at = (url: string): string => `${base}/sandbox/${name}${new URL(url).pathname.replace(/\/$/, '')}`;
  return { apiBaseUrl: at(real.apiBaseUrl), authBaseUrl: at(real.authBaseUrl) };
}

/** The values a network app's credentials have when their env vars are unset (the sandbox accepts any). */
export function sandboxCredentials(name: string, keys: NetworkAppKeys): NetworkAppKeys {
  return {
    clientId: `sandbox-${name}-${keys.clientId.endsWith('_APP_ID') ? 'app' : 'client'}`,
    clientSecret: `sandbox-${name}-secret`,
  };
}
