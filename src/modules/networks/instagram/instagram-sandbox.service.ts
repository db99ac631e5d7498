import { Injectable } from '@nestjs/common';
import {
  graphAuth,
  type GraphCommentsDialect,
  graphFail,
  graphTime,
  graphNotFound,
  graphMagicErrors,
  ownedObject,
  ownObjects,
} from '../kit/sandbox/graph-sandbox';
import { type ContainerDialect, publishedMedia } from '../kit/sandbox/meta-containers';
import { SandboxGrant, sandboxNumericId, TokenInfo } from '../kit/sandbox/sandbox-oauth';
import { SandboxStore } from '../kit/sandbox/sandbox-store';
import { itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { INSTAGRAM_GRAPH_VERSION, INSTAGRAM_RULES } from './instagram.adapter';

/** Accounts of the simulated Instagram: each grant's new user has one Page with one IG professional account. */
export interface IgAccount {
  id: string;
  pageId: string;
  pageName: string;
  username: string;
  name: string;
  ownerUserId: string;
}

/** Instagram's container API: its names, limits (INSTAGRAM_RULES) and error wording. */
export const INSTAGRAM_CONTAINERS: ContainerDialect = {
  network: 'instagram',
  routes: {
    version: INSTAGRAM_GRAPH_VERSION,
    collection: 'media',
    publish: 'media_publish',
    limit: 'content_publishing_limit',
  },
  permalinkBase: (base) => `${base}/sandbox/instagram/www/p`,
  permalink: { route: 'www/p/:id', label: 'Instagram' },
  ownerOf: (store, id, token) => ownedObject<IgAccount>(store, 'instagram', id, token, 'GraphMethodException'),
  statusView: (c, status) => {
    const text = {
      ERROR: c.error,
      IN_PROGRESS: 'In Progress',
      FINISHED: 'Finished: Media has been uploaded and it is ready to be published.',
    };
    return { id: c.id, status_code: status, status: status in text ? text[status as keyof typeof text] : status };
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
  magic: graphMagicErrors(),
  errors: {
    missingUrl: (field) => graphFail(`(#100) The parameter ${field} is required`, { code: 100 }),
    textTooLong: () =>
      graphFail('The caption is too long.', {
        code: 100,
        subcode: 2207010,
        userTitle: 'Caption too long',
        userMsg: `Captions may have at most ${INSTAGRAM_RULES.maxText.toLocaleString('en-US')} characters.`,
      }),
    tooManyHashtags: () =>
      graphFail('The caption has too many hashtags.', {
        code: 100,
        subcode: 2207010,
        userMsg: `Captions may have at most ${INSTAGRAM_RULES.maxHashtags} hashtags.`,
      }),
    carouselSize: () =>
      graphFail(
        `(#100) The carousel must contain between ${INSTAGRAM_RULES.images.carouselMin} and ${INSTAGRAM_RULES.images.max} children.`,
        { code: 100, subcode: 2207028 },
      ),
    invalidChild: (id) => graphFail(`(#100) Invalid child container: ${id}`, { code: 100, subcode: 2207028 }),
    imageDownload: (problem) =>
      graphFail('The media could not be fetched from this URI.', {
        code: 9004,
        subcode: 2207052,
        userTitle: 'Media download has failed',
        userMsg: problem,
      }),
    invalidCreationId: () => graphFail('(#100) Invalid parameter: creation_id', { code: 100 }),
    notReady: () =>
      graphFail('Media ID is not available. The media is not ready for publishing, please wait for a moment.', {
        code: 9007,
        subcode: 2207027,
      }),
    notPublishable: (c, status) =>
      status === 'EXPIRED'
        ? graphFail('The media container has expired.', { code: 9007, subcode: 2207020 })
        : graphFail(`The media could not be published: ${c.error ?? 'processing failed'}`, {
            code: 9007,
            subcode: 2207026,
          }),
    published: () => graphFail('(#100) This media has already been published.', { code: 100 }),
    quota: () =>
      graphFail('Application request limit reached', {
        code: 9,
        subcode: 2207042,
        userMsg: 'You reached the maximum number of posts allowed per day.',
      }),
  },
};

/** Instagram's comments on an account's media: the account comments under its username. */
export const INSTAGRAM_COMMENTS: GraphCommentsDialect = {
  network: 'instagram',
  version: INSTAGRAM_GRAPH_VERSION,
  item: () => ({
    ...graphAuth('instagram'),
    caller: async (info, { req, store }) => {
      const id = req.params.id as string;
      const media = await publishedMedia(store, 'instagram', id);
      if (!media) throw graphNotFound(id, 'GraphMethodException', `Unsupported ${req.method.toLowerCase()} request. `);
      const account = await ownedObject<IgAccount>(store, 'instagram', media.ownerId, info, 'GraphMethodException');
      return { id, publishedAt: media.timestamp, author: { id: account.id, name: account.username } };
    },
  }),
  render: (c) => ({
    id: c.id,
    text: c.text,
    username: c.authorName.toLowerCase().replace(/[^a-z]+/g, '.'),
    timestamp: graphTime(new Date(c.createdAt)),
  }),
  missing: '(#100) The parameter message is required.',
  messageInQuery: true,
};

@Injectable()
export class InstagramSandbox {
  constructor(private readonly store: SandboxStore) {}

  accountsOf(grant: SandboxGrant): Promise<IgAccount[]> {
    const suffix = grant.userId.slice(-4);
    return ownObjects(this.store, 'instagram', grant.userId, () => [
      {
        id: `1784${sandboxNumericId().slice(0, 13)}`,
        pageId: sandboxNumericId(),
        pageName: `Sandbox Studio ${suffix}`,
        username: `sandbox.studio.${suffix}`,
        name: `Sandbox Studio ${suffix}`,
        ownerUserId: grant.userId,
      },
    ]);
  }

  /** The IG account a user token may act for (its owner only). */
  authorize(igId: string, token: TokenInfo): Promise<IgAccount> {
    return ownedObject(this.store, 'instagram', igId, token, 'GraphMethodException');
  }
}
