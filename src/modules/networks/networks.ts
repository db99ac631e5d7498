import type { NetworkDefinition } from './kit/definition';
import type { PlatformName } from './platform-name';
import { facebookNetwork } from './facebook/facebook.network';
import { instagramNetwork } from './instagram/instagram.network';
import { linkedinNetwork } from './linkedin/linkedin.network';
import { threadsNetwork } from './threads/threads.network';
import { tiktokNetwork } from './tiktok/tiktok.network';
import { youtubeNetwork } from './youtube/youtube.network';

/** Every network, one line each; a PlatformName without its definition does not compile. */
export const NETWORKS: Record<PlatformName, NetworkDefinition> = {
  facebook: facebookNetwork,
  instagram: instagramNetwork,
  linkedin: linkedinNetwork,
  tiktok: tiktokNetwork,
  youtube: youtubeNetwork,
  threads: threadsNetwork,
};
