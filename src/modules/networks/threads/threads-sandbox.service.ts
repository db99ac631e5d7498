import { addDays } from '../kit/days';
import {
  graphFail,
  GraphErrorSpec,
  graphMagicErrors,
  longLivedToken,
  oauthFail,
  ownedObject,
  ownObjects,
} from '../kit/sandbox/graph-sandbox';
import type { ContainerDialect } from '../kit/sandbox/meta-containers';
import type { SandboxLogin } from '../kit/sandbox/sandbox-login';
import { dailyAccountMetrics } from '../kit/sandbox/sandbox-metrics';
import { SandboxGrant, sandboxNumericId } from '../kit/sandbox/sandbox-oauth';
import { SandboxStore } from '../kit/sandbox/sandbox-store';
import { THREADS_RULES } from './threads.adapter';

/** Users of the simulated Threads: one new profile per grant. */
export interface ThreadsUser {
  id: string;
  username: string;
  name: string;
  ownerUserId: string;
}

/** Threads' errors are Graph's with type THApiException. */
const thFail = (message: string, spec: Omit<GraphErrorSpec, 'type'>) =>
  graphFail(message, { ...spec, type: 'THApiException' });

/** Threads' container API: its names, limits (THREADS_RULES) and error wording. */
export const THREADS_CONTAINERS: ContainerDialect = {
  network: 'threads',
  routes: { version: 'v1.0', collection: 'threads', publish: 'threads_publish', limit: 'threads_publishing_limit' },
  permalinkBase: (base, user) => `${base}/sandbox/threads/www/@${user.username}/post`,
  permalink: { route: 'www/:handle/post/:id', label: 'Threads' },
  ownerOf: (store, id, token) =>
    id === 'me'
      ? threadsUser(store, token.grant)
      : ownedObject<ThreadsUser>(store, 'threads', id, token, 'THApiException'),
  statusView: (c, status) => ({ id: c.id, status, ...(status === 'ERROR' ? { error_message: c.error } : {}) }),
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
  otherType: () => thFail('Param media_type must be one of TEXT, IMAGE, VIDEO, CAROUSEL.', { code: 100 }),
  review: false,
  videoError: () => 'FAILED_DOWNLOADING_VIDEO',
  replies: {
    invalidTarget: () => thFail('Invalid parameter: reply_to_id', { code: 100 }),
    refused: (message) => thFail(message, { code: 100 }),
  },
  magic: graphMagicErrors('THApiException'),
  errors: {
    textTooLong: () => thFail(`Param text must be at most ${THREADS_RULES.maxText} characters long.`, { code: 100 }),
    textRequired: () => thFail('Param text is required for TEXT posts.', { code: 100 }),
    carouselSize: () =>
      thFail(
        `A carousel must have between ${THREADS_RULES.images.carouselMin} and ${THREADS_RULES.images.max} children.`,
        { code: 100 },
      ),
    invalidChild: (id) => thFail(`Invalid child container: ${id}`, { code: 100 }),
    imageDownload: (problem) => thFail('Media download has failed.', { code: 100, subcode: 2207052, userMsg: problem }),
    invalidCreationId: () => thFail('Invalid parameter: creation_id', { code: 100 }),
    notReady: () =>
      thFail('The media is not ready for publishing, please wait for a moment.', { code: 9007, subcode: 2207027 }),
    notPublishable: (c, status) =>
      thFail(`The media cannot be published: ${c.error ?? status}.`, { code: 9007, subcode: 2207026 }),
    published: () => thFail('This media has already been published.', { code: 100 }),
    quota: () => thFail('You reached the maximum number of posts allowed per day.', { code: 4, subcode: 2207042 }),
  },
};

/** Threads' login: no PKCE; code → short-lived token (1 h) and the user id; long-lived tokens (60 d) refresh. */
export const THREADS_LOGIN: SandboxLogin = {
  network: 'threads',
  appLabel: 'Threads app',
  pkce: false,
  authorize: 'oauth/authorize',
  tokens: [
    {
      method: 'POST',
      path: 'oauth/access_token',
      status: 201,
      answer: async (oauth, b) => {
        if (!b.client_id || !b.client_secret)
          throw graphFail('Missing client_id or client_secret parameter.', { code: 101 });
        if (b.grant_type !== 'authorization_code') throw graphFail('Unsupported grant_type.', { code: 100 });
        const grant = await oauth
          .redeemCode('threads', { code: b.code ?? '', clientId: b.client_id, redirectUri: b.redirect_uri ?? '' })
          .catch(oauthFail);
        const t = await oauth.issueTokens(grant, { accessTtlSeconds: 3600, prefix: 'THsbxS' });
        return { access_token: t.accessToken, user_id: (await threadsUser(oauth.store, grant)).id };
      },
    },
    {
      method: 'GET',
      path: 'access_token',
      answer: (oauth, q) => {
        if (q.grant_type !== 'th_exchange_token' || !q.client_secret)
          throw graphFail('Invalid grant_type or missing client_secret.', { code: 100 });
        return longLivedToken(oauth, 'threads', q.access_token, 'THsbxL');
      },
    },
    {
      method: 'GET',
      path: 'refresh_access_token',
      answer: (oauth, q) => {
        if (q.grant_type !== 'th_refresh_token') throw graphFail('Invalid grant_type.', { code: 100 });
        return longLivedToken(oauth, 'threads', q.access_token, 'THsbxL');
      },
    },
  ],
};

/** A grant's Threads profile (new for every grant). */
export async function threadsUser(store: SandboxStore, grant: SandboxGrant): Promise<ThreadsUser> {
  const suffix = grant.userId.slice(-4);
  const [user] = await ownObjects(store, 'threads', grant.userId, () => [
    {
      id: sandboxNumericId(),
      username: `sandbox_threads_${suffix}`,
      name: `Sandbox Threads ${suffix}`,
      ownerUserId: grant.userId,
    },
  ]);
  return user;
}

/** threads_insights over `days`: views as a daily series, the rest as totals (like the real API). */
export function threadsUserInsights(userId: string, days: string[], names: string[]): unknown[] {
  const metrics = days.map((d) => dailyAccountMetrics(userId, d));
  const split = (d: (typeof metrics)[number]) => {
    const replies = Math.floor(d.engagement / 5);
    return { likes: d.engagement - replies - d.shares, replies, reposts: d.shares, quotes: 0 };
  };
  const total = (k: 'likes' | 'replies' | 'reposts' | 'quotes') => metrics.reduce((s, d) => s + split(d)[k], 0);
  return names.map((name) => {
    if (name === 'views')
      return {
        name,
        period: 'day',
        title: 'views',
        values: metrics.map((d) => ({ value: d.views, end_time: `${addDays(d.date, 1)}T07:00:00+0000` })),
        id: `${userId}/insights/views/day`,
      };
    const value = name === 'followers_count' ? (metrics.at(-1)?.followers ?? 0) : total(name as 'likes');
    return { name, period: 'day', title: name, total_value: { value }, id: `${userId}/insights/${name}/day` };
  });
}
