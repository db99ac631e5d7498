import { NETWORKS } from './networks';

/** A network's name: a key of NETWORKS (networks.ts), the one list of networks. */
export type PlatformName = keyof typeof NETWORKS;
export const PLATFORM_NAMES = Object.keys(NETWORKS) as [PlatformName, ...PlatformName[]];

export function isPlatformName(value: unknown): value is PlatformName {
  return typeof value === 'string' && (PLATFORM_NAMES as readonly string[]).includes(value);
}
