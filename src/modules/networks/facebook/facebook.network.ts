import { defineNetwork, NetworkDefinition } from '../kit/definition';
import { FACEBOOK_GRAPH_VERSION as V, FacebookAdapter } from './facebook.adapter';
import { FACEBOOK_SIMULATOR } from './facebook-sandbox.controller';

/** Facebook Pages: the Graph API, with Facebook Login. */
export const facebookNetwork: NetworkDefinition<'facebook'> = defineNetwork('facebook', FacebookAdapter, {
  configKeys: { clientId: 'FACEBOOK_APP_ID', clientSecret: 'FACEBOOK_APP_SECRET' },
  real: { apiBaseUrl: `https://graph.facebook.com/${V}`, authBaseUrl: `https://www.facebook.com/${V}/dialog/oauth` },
  // The one cap Meta publishes for Pages is the Reels API's ("limited to 30 API-published posts
  // within a 24-hour moving period", POST /{page-id}/video_reels). This adapter publishes videos
  // through /{page-id}/videos and text/links/photos through the feed, for which no figure is
  // documented, so no Facebook target counts against it: none is declared.
  caps: [],
  simulator: FACEBOOK_SIMULATOR,
});
