import {
  dayInsights,
  type DayMetric,
  graphDays,
  graphFail,
  graphNotFound,
  longLivedToken,
  MISSING_CLIENT,
  oauthFail,
  graphProfiles,
} from '../kit/sandbox/graph-sandbox';
import { type ContainerDialect, containerOwner, containerRoutes } from '../kit/sandbox/meta-containers';
import { SandboxKit } from '../kit/sandbox/sandbox-state';
import { type SandboxLogin, simulator } from '../kit/sandbox/sandbox-login';
import { type SandboxOAuth, sandboxNumericId } from '../kit/sandbox/sandbox-oauth';
import { route } from '../kit/sandbox/sandbox-routes';
import { THREADS_RULES } from './threads.adapter';

const NET = 'threads';
/** threads_insights: views as a daily series (end_time the next day at 07:00 UTC), the rest as totals (like the real API). */
const USER_METRICS: Record<string, DayMetric> = {
  views: { pick: (m) => m.views, endTime: 'T07:00:00+0000' },
  likes: { pick: (m) => m.engagement - Math.floor(m.engagement / 5) - m.shares },
  replies: { pick: (m) => Math.floor(m.engagement / 5) },
  reposts: { pick: (m) => m.shares },
  quotes: { pick: () => 0 },
  followers_count: { pick: (m) => m.followers, last: true },
};

/** Users of the simulated Threads: a grant's profile (new for every grant). */
const USERS = graphProfiles(NET, 'THApiException', (grant, suffix) => ({
  id: sandboxNumericId(),
  username: `sandbox_threads_${suffix}`,
  name: `Sandbox Threads ${suffix}`,
  ownerUserId: grant.userId,
}));

export const THREADS_CONTAINERS: ContainerDialect = {
  network: 'threads',
  routes: { version: 'v1.0', collection: 'threads', publish: 'threads_publish', limit: 'threads_publishing_limit' },
  profile: {
    route: 'me',
    answer: async (sim, grant) => {
      const { id, username, name } = await USERS.of(sim.store, grant);
      const picture = sim.sampleMedia(`image.png?threads=${id}`);
      return { id, username, name, threads_profile_picture_url: picture };
    },
  },
  permalink: { route: 'www/:handle/post/:id', label: 'Threads', path: (user) => `www/@${user.username}/post` },
  ownerOf: (store, id, token) => (id === 'me' ? USERS.of(store, token.grant) : USERS.owned(store, id, token)),
  statusView: (c, status) => ({ id: c.id, status, ...(status === 'ERROR' ? { error_message: c.error } : {}) }),
  insights: (m) => ({ views: m.views, likes: m.likes, replies: m.comments, reposts: m.shares, quotes: 0, shares: 0 }),
  owner: (id) => graphNotFound(id, 'THApiException', ''),
  view: (m, user) => ({
    id: m.id,
    media_product_type: 'THREADS',
    media_type: m.mediaType,
    text: m.text,
    permalink: m.permalink,
    timestamp: m.timestamp,
    username: user.username,
    ...(m.mediaUrls[0] ? { media_url: m.mediaUrls[0] } : {}),
  }),
  rules: THREADS_RULES,
  textField: 'text',
  types: { TEXT: 'TEXT', IMAGE: 'IMAGE', VIDEO: 'VIDEO', CAROUSEL: 'CAROUSEL' },
  videoError: () => 'FAILED_DOWNLOADING_VIDEO',
  errorType: 'THApiException',
  errors: {
    mediaType: ['Param media_type must be one of TEXT, IMAGE, VIDEO, CAROUSEL.', { code: 100 }],
    textTooLong: [`Param text must be at most ${THREADS_RULES.maxText} characters long.`, { code: 100 }],
    textRequired: ['Param text is required for TEXT posts.', { code: 100 }],
    carouselSize: [
      `A carousel must have between ${THREADS_RULES.images.carouselMin} and ${THREADS_RULES.images.max} children.`,
      { code: 100 },
    ],
    invalidChild: ['Invalid child container: {id}', { code: 100 }],
    imageDownload: ['Media download has failed.', { code: 100, subcode: 2207052, userMsg: '{problem}' }],
    invalidCreationId: ['Invalid parameter: creation_id', { code: 100 }],
    notReady: ['The media is not ready for publishing, please wait for a moment.', { code: 9007, subcode: 2207027 }],
    notPublishable: ['The media cannot be published: {reason}.', { code: 9007, subcode: 2207026 }],
    published: ['This media has already been published.', { code: 100 }],
    quota: ['You reached the maximum number of posts allowed per day.', { code: 4, subcode: 2207042 }],
    replyTarget: ['Invalid parameter: reply_to_id', { code: 100 }],
    replyRefused: ['{m}', { code: 100 }],
  },
};

/** A long-lived token (60 d) for a valid `access_token`, given the right grant type (and the secret, to exchange). */
function longLived(path: string, grantType: string, message: string, secretNeeded = false) {
  return route<SandboxOAuth>(`GET ${path}`, null, ({ q }, oauth) => {
    if (q.grant_type !== grantType || (secretNeeded && !q.client_secret)) throw graphFail(message, { code: 100 });
    return longLivedToken(oauth, 'threads', q.access_token, 'THsbxL');
  });
}

/** Threads' login: no PKCE; code → short-lived token (1 h) and the user id; long-lived tokens (60 d) refresh. */
export const THREADS_LOGIN: SandboxLogin = {
  network: 'threads',
  appLabel: 'Threads app',
  pkce: false,
  authorize: 'oauth/authorize',
  tokens: [
    route<SandboxOAuth>({ at: 'POST oauth/access_token', status: 201 }, null, async ({ body: b }, oauth) => {
      if (!b.client_id || !b.client_secret) throw MISSING_CLIENT();
      if (b.grant_type !== 'authorization_code') throw graphFail('Unsupported grant_type.', { code: 100 });
      const grant = await oauth.redeemCode('threads', b).catch(oauthFail);
      const t = await oauth.issueTokens(grant, { accessTtlSeconds: 3600, prefix: 'THsbxS' });
      return { access_token: t.accessToken, user_id: (await USERS.of(oauth.store, grant)).id };
    }),
    longLived('access_token', 'th_exchange_token', 'Invalid grant_type or missing client_secret.', true),
    longLived('refresh_access_token', 'th_refresh_token', 'Invalid grant_type.'),
  ],
};

/** The simulated Threads API (graph.threads.net): a profile's insights and the kit's container routes. */
export const THREADS_SIMULATOR = simulator(THREADS_LOGIN, SandboxKit, [
  route('GET v1.0/:owner/threads_insights', containerOwner(THREADS_CONTAINERS), ({ q, caller: user }) => {
    const names = (q.metric ?? '').split(',').filter(Boolean);
    const listOf = `Param metric must be a list of: ${Object.keys(USER_METRICS).join(', ')}`;
    if (!names.length || names.some((n) => !Object.hasOwn(USER_METRICS, n)))
      throw graphFail(listOf, { code: 100, type: 'THApiException' });
    const days = graphDays(q, { until: Date.now() + 86_400_000, days: 1 }).slice(0, 93);
    return { data: dayInsights(user.id, days, names, USER_METRICS) };
  }),
  ...containerRoutes(THREADS_CONTAINERS),
]);
