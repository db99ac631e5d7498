import type { Provider, Type } from '@nestjs/common';
import type { AdapterEndpoints, PlatformAdapter } from './adapter';
import type { PublishingCap } from './caps';
import type { PlatformName } from '../platform-name';

type NetworkAppKeys = Pick<AdapterEndpoints, 'clientId' | 'clientSecret'>;
export type NetworkUrls = Pick<AdapterEndpoints, 'apiBaseUrl' | 'authBaseUrl'>;

/** An adapter class, knowing the network's real base URLs (`static real`). */
type AdapterClass = { new (endpoints: AdapterEndpoints): PlatformAdapter; readonly real: NetworkUrls };

/** Everything the service knows about one network, in its folder's `<net>.network.ts`; networks.ts lists them. */
export interface NetworkDefinition<Name extends string = PlatformName> {
  name: Name;
  /** Env vars of the app's client id and secret (unset: `sandboxCredentials`; .env.example lists them). */
  configKeys: NetworkAppKeys;
  real: NetworkUrls;
  create: (endpoints: AdapterEndpoints) => PlatformAdapter;
  /** The caps the network documents (figure and source cited); the adapter's `publishingUsage` reads the first. */
  caps: PublishingCap[];
  /** The simulator under /sandbox/<name> (registered by SandboxModule). */
  simulator: { controllers: Type[]; providers: Provider[] };
}

type NetworkParts = Omit<NetworkDefinition, 'name' | 'create' | 'real'>;

export function defineNetwork<Name extends string>(name: Name, adapter: AdapterClass, parts: NetworkParts) {
  return { name, ...parts, real: adapter.real, create: (endpoints: AdapterEndpoints) => new adapter(endpoints) };
}

export function sandboxUrls(name: string, real: NetworkUrls, base: string): NetworkUrls {
  const at = (url: string): string => `${base}/sandbox/${name}${new URL(url).pathname.replace(/\/$/, '')}`;
  return { apiBaseUrl: at(real.apiBaseUrl), authBaseUrl: at(real.authBaseUrl) };
}

/** A network app's credentials when their env vars are unset (the sandbox accepts any). */
export function sandboxCredentials(name: string, keys: NetworkAppKeys): NetworkAppKeys {
  const id = keys.clientId.endsWith('_APP_ID') ? 'app' : 'client';
  return { clientId: `sandbox-${name}-${id}`, clientSecret: `sandbox-${name}-secret` };
}
