import type { NetworkDefinition } from './kit/definition';
import { facebookNetwork } from './facebook/facebook.network';
import { instagramNetwork } from './instagram/instagram.network';
import { linkedinNetwork } from './linkedin/linkedin.network';
import { threadsNetwork } from './threads/threads.network';
import { tiktokNetwork } from './tiktok/tiktok.network';
import { youtubeNetwork } from './youtube/youtube.network';

/**
 * Every network, one line each (in the order the API lists them): adding a network is its folder
 * plus its line here. PlatformName is this list's keys; each definition's `name` must be its key.
 */
export const NETWORKS = networkList({
  facebook: facebookNetwork,
  instagram: instagramNetwork,
  linkedin: linkedinNetwork,
  tiktok: tiktokNetwork,
  youtube: youtubeNetwork,
  threads: threadsNetwork,
});

/** The list as it is, once the compiler has checked that each definition is named by its key. */
function networkList<T extends { [K in keyof T]: NetworkDefinition<K & string> }>(list: T): T {
  return list;
}
