import {
  facebookLogin,
  graphCommentRoutes,
  type GraphCommentsDialect,
  dayInsights,
  type DayMetric,
  graphDays,
  graphFail,
  graphTime,
  graphProfiles,
} from '../kit/sandbox/graph-sandbox';
import { type ContainerDialect, containerRoutes, publishedMedia } from '../kit/sandbox/meta-containers';
import { SandboxKit } from '../kit/sandbox/sandbox-state';
import { dailyAccountMetrics, itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { simulator } from '../kit/sandbox/sandbox-login';
import { sandboxNumericId } from '../kit/sandbox/sandbox-oauth';
import { dayOf } from '../kit/days';
import { INSTAGRAM_GRAPH_VERSION as V, INSTAGRAM_RULES } from './instagram.adapter';

const NET = 'instagram';

/** A grant's Instagram account: a new user with one Page and one IG professional account. */
const ACCOUNTS = graphProfiles(NET, 'GraphMethodException', (grant, suffix) => ({
  id: `1784${sandboxNumericId().slice(0, 13)}`,
  pageId: sandboxNumericId(),
  pageName: `Sandbox Studio ${suffix}`,
  username: `sandbox.studio.${suffix}`,
  name: `Sandbox Studio ${suffix}`,
  ownerUserId: grant.userId,
}));

const ACCOUNT_METRICS: Record<string, DayMetric> = {
  views: { pick: (m) => m.views },
  reach: { pick: (m) => m.reach },
  total_interactions: { pick: (m) => m.engagement },
  shares: { pick: (m) => m.shares },
};

export const INSTAGRAM_CONTAINERS: ContainerDialect = {
  network: 'instagram',
  routes: { version: V, collection: 'media', publish: 'media_publish', limit: 'content_publishing_limit' },
  profile: {
    route: 'me/accounts',
    /** The user's Page with its IG professional account. */
    answer: async (sim, grant) => {
      const a = await ACCOUNTS.of(sim.store, grant);
      const picture = sim.sampleMedia(`image.png?ig=${a.id}`);
      const ig = { id: a.id, username: a.username, name: a.name, profile_picture_url: picture };
      const data = [{ id: a.pageId, name: a.pageName, instagram_business_account: ig }];
      return { data, paging: { cursors: { before: 'MAZDZD', after: 'MAZDZD' } } };
    },
  },
  permalink: { route: 'www/p/:id', label: 'Instagram', path: () => 'www/p' },
  ownerOf: (store, id, token) => ACCOUNTS.owned(store, id, token),
  statusView: (c, status) => {
    const finished = 'Finished: Media has been uploaded and it is ready to be published.';
    const text: Record<string, string | null> = { ERROR: c.error, IN_PROGRESS: 'In Progress', FINISHED: finished };
    return { id: c.id, status_code: status, status: status in text ? text[status] : status };
  },
  insights: ({ saves: saved, engagement: total_interactions, ...m }) => ({ ...m, saved, total_interactions }),
  owner: {
    node: ({ id, username, name }, mediaCount) => {
      const { followers } = dailyAccountMetrics(id, dayOf(Date.now()));
      return { id, username, name, followers_count: followers, media_count: mediaCount };
    },
    /** The account's totals over the asked days (today by default). */
    insights: (account, q) => {
      const names = (q.metric ?? '').split(',').filter(Boolean);
      const days = graphDays(q, { until: Date.now() + 86_400_000, days: 1 });
      const oneOf = `(#100) metric[0] must be one of the following values: ${Object.keys(ACCOUNT_METRICS).join(', ')}`;
      if (names.some((n) => !Object.hasOwn(ACCOUNT_METRICS, n))) throw graphFail(oneOf, { code: 100 });
      return { data: dayInsights(account.id, days, names, ACCOUNT_METRICS, true) };
    },
  },
  view: (m) => ({
    id: m.id,
    caption: m.text,
    media_type: m.mediaType,
    media_url: m.mediaUrls[0],
    permalink: m.permalink,
    timestamp: m.timestamp,
    like_count: itemMetrics(m.id).likes,
    comments_count: itemMetrics(m.id).comments,
  }),
  rules: INSTAGRAM_RULES,
  textField: 'caption',
  types: { CAROUSEL: 'CAROUSEL', REELS: 'VIDEO', VIDEO: 'VIDEO' },
  otherType: 'IMAGE',
  review: true,
  videoError: (problem) => `ERROR: ${problem} (2207026)`,
  errors: {
    missingUrl: ['(#100) The parameter {field} is required', { code: 100 }],
    textTooLong: [
      'The caption is too long.',
      {
        code: 100,
        subcode: 2207010,
        userTitle: 'Caption too long',
        userMsg: `Captions may have at most ${INSTAGRAM_RULES.maxText.toLocaleString('en-US')} characters.`,
      },
    ],
    tooManyHashtags: [
      'The caption has too many hashtags.',
      { code: 100, subcode: 2207010, userMsg: `Captions may have at most ${INSTAGRAM_RULES.maxHashtags} hashtags.` },
    ],
    carouselSize: [
      `(#100) The carousel must contain between ${INSTAGRAM_RULES.images.carouselMin} and ${INSTAGRAM_RULES.images.max} children.`,
      { code: 100, subcode: 2207028 },
    ],
    invalidChild: ['(#100) Invalid child container: {id}', { code: 100, subcode: 2207028 }],
    imageDownload: [
      'The media could not be fetched from this URI.',
      { code: 9004, subcode: 2207052, userTitle: 'Media download has failed', userMsg: '{problem}' },
    ],
    invalidCreationId: ['(#100) Invalid parameter: creation_id', { code: 100 }],
    notReady: [
      'Media ID is not available. The media is not ready for publishing, please wait for a moment.',
      { code: 9007, subcode: 2207027 },
    ],
    expired: ['The media container has expired.', { code: 9007, subcode: 2207020 }],
    notPublishable: ['The media could not be published: {reason}', { code: 9007, subcode: 2207026 }],
    published: ['(#100) This media has already been published.', { code: 100 }],
    quota: [
      'Application request limit reached',
      { code: 9, subcode: 2207042, userMsg: 'You reached the maximum number of posts allowed per day.' },
    ],
  },
};

/** Instagram's comments on an account's media: the account comments under its username. */
export const INSTAGRAM_COMMENTS: GraphCommentsDialect = {
  network: 'instagram',
  version: V,
  find: async (store, id) => {
    const media = await publishedMedia(store, NET, id);
    return media && { publishedAt: media.timestamp, ownerId: media.ownerId };
  },
  author: async (store, ownerId, token) => {
    const account = await ACCOUNTS.owned(store, ownerId, token);
    return { id: account.id, name: account.username };
  },
  render: (c) => ({
    id: c.id,
    text: c.text,
    username: c.authorName.toLowerCase().replace(/[^a-z]+/g, '.'),
    timestamp: graphTime(new Date(c.createdAt)),
  }),
  missing: '(#100) The parameter message is required.',
  messageInQuery: true,
};

export const INSTAGRAM_SIMULATOR = simulator(
  facebookLogin(NET, 'Instagram app', V, { short: 'EAAsbxJ', long: 'EAAsbxI' }),
  SandboxKit,
  [...containerRoutes(INSTAGRAM_CONTAINERS), ...graphCommentRoutes(INSTAGRAM_COMMENTS)],
);
