import { NETWORKS } from './networks';

/** A network's name: a key of NETWORKS (networks.ts), the one list of networks. */
export type PlatformName = keyof typeof NETWORKS;
export const PLATFORM_NAMES = Object.keys(NETWORKS) as [PlatformName, ...PlatformName[]];

export function isPlatformName(value: unknown): value is PlatformName {
  return typeof value === 'string' && (PLATFORM_NAMES as readonly string[]).includes(value);
}

/**
 * The networks `T` has no field named after; `never` when it has them all. With
 * `EveryPlatform<PlatformsMissingFrom<T>>` the build fails naming the network whose field `T` lacks
 * (`Type '"<network>"' does not satisfy the constraint 'never'`): the post DTOs use it for their
 * per-network options (`content.<network>`), which the validation pipe would otherwise refuse.
 */
export type PlatformsMissingFrom<T> = Exclude<PlatformName, keyof T>;
export type EveryPlatform<Missing extends never> = Missing;
