import type { NetworkDefinition } from './kit/definition';
import { facebookNetwork } from './facebook/facebook.network';
import { instagramNetwork } from './instagram/instagram.network';
import { linkedinNetwork } from './linkedin/linkedin.network';
import { threadsNetwork } from './threads/threads.network';
import { tiktokNetwork } from './tiktok/tiktok.network';
import { youtubeNetwork } from './youtube/youtube.network';

/** Every network in the order the API lists them: adding one is its folder plus its line here (keys: PlatformName). */
export const NETWORKS = networkList({
  facebook: facebookNetwork,
  instagram: instagramNetwork,
  linkedin: linkedinNetwork,
  tiktok: tiktokNetwork,
  youtube: youtubeNetwork,
  threads: threadsNetwork,
});

/** The list as it is, once the compiler has checked that each definition's `name` is its key. */
function networkList<T extends { [K in keyof T]: NetworkDefinition<K & string> }>(list: T): T {
  return list;
}
