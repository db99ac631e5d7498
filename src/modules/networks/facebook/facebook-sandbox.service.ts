import { Injectable } from '@nestjs/common';
import {
  graphAuth,
  type GraphCommentsDialect,
  graphFail,
  graphNotFound,
  graphMagicErrors,
  graphTime,
  numericId,
  ownObjects,
} from '../kit/sandbox/graph-sandbox';
import type { SandboxAuthSpec } from '../kit/sandbox/sandbox-auth';
import { FACEBOOK_GRAPH_VERSION } from './facebook.adapter';
import { enforceMagicWords } from '../kit/sandbox/magic-words';
import { SandboxGrant, SandboxOAuth, sandboxNumericId, TokenInfo } from '../kit/sandbox/sandbox-oauth';
import { SandboxStore, SimulatorState } from '../kit/sandbox/sandbox-store';

/** State of the simulated Facebook: the pages of each sandbox user, posts, unpublished photos, videos. */

export interface FbPage {
  id: string;
  name: string;
  username: string;
  category: string;
  ownerUserId: string;
  accessToken: string;
}

export interface FbItem {
  id: string;
  pageId: string;
  kind: 'status' | 'photo' | 'album' | 'video';
  message: string;
  link?: string;
  mediaUrls: string[];
  createdTime: string;
  permalinkUrl: string;
}

/** A photo uploaded with published=false, until a feed post attaches it. */
interface FbPhoto {
  id: string;
  pageId: string;
  url: string;
}

const PAGE_NAMES = [
  ['Sandbox Bakery', 'Bakery'],
  ['Sandbox Bikes', 'Bicycle Shop'],
  ['Sandbox Books', 'Book Store'],
] as const;

const FB_MAGIC = graphMagicErrors();

/** The Page a token may act for: its Page token, or (reads) its owner's user token. */
async function authorizePage(store: SandboxStore, pageId: string, token: TokenInfo, write: boolean): Promise<FbPage> {
  const page = await store.get<FbPage>(['facebook', 'object', pageId]);
  if (!page)
    throw graphFail(
      `Unsupported post request. Object with ID '${pageId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      { code: 100, subcode: 33, type: 'GraphMethodException' },
    );
  const own =
    token.subject === page.id || (!write && token.subject === null && token.grant.userId === page.ownerUserId);
  if (!own)
    throw graphFail(
      '(#200) The permission(s) pages_manage_posts are not available. It could be because the request needs a Page access token.',
      { code: 200, status: 403 },
    );
  return page;
}

/** The route's :pageId, when the call's token may post as it (its Page token) or, to read, its owner's user token. */
const fbPage = (write: boolean): SandboxAuthSpec<FbPage> => ({
  ...graphAuth('facebook'),
  caller: (info, { req, store }) => authorizePage(store, req.params.pageId as string, info, write),
});
/** `@SandboxAuth(FB_PAGE_WRITE) page`: a Page the call may post as. */
export const FB_PAGE_WRITE = fbPage(true);
export const FB_PAGE_READ = fbPage(false);

/** Facebook's comments on a Page's items: the Page comments; ids are `<post id>_<comment id>`. */
export const FACEBOOK_COMMENTS: GraphCommentsDialect = {
  network: 'facebook',
  version: FACEBOOK_GRAPH_VERSION,
  item: (write) => ({
    ...graphAuth('facebook'),
    caller: async (info, { req, store }) => {
      const id = req.params.id as string;
      const item = await store.get<FbItem>(['facebook', 'item', id]);
      if (!item) throw graphNotFound(id, 'GraphMethodException', `Unsupported ${req.method.toLowerCase()} request. `);
      const page = await authorizePage(store, item.pageId, info, write);
      return { id, publishedAt: item.createdTime, author: page };
    },
  }),
  render: (c) => ({
    id: c.id,
    message: c.text,
    created_time: graphTime(new Date(c.createdAt)),
    from: { id: c.authorId, name: c.authorName },
  }),
  missing: '(#100) Missing message or attachment.',
  commentId: (itemId) => `${itemId.split('_').at(-1)}_${numericId()}`,
};

@Injectable()
export class FacebookSandbox extends SimulatorState {
  protected readonly network = 'facebook';
  readonly photos = this.records<FbPhoto>('photo', (p) => p.id);
  /** By page, newest first. */
  readonly items = this.records<FbItem>('item', (i) => i.id);

  /** Every grant is a new user who manages three new Pages (so a page picker can be exercised). */
  pagesOf(grant: SandboxGrant, oauth: SandboxOAuth): Promise<FbPage[]> {
    const suffix = grant.userId.slice(-4);
    return ownObjects(this.store, 'facebook', grant.userId, async () => {
      const pages: FbPage[] = [];
      for (const [name, category] of PAGE_NAMES) {
        const id = sandboxNumericId();
        const token = await oauth.issueTokens(grant, { accessTtlSeconds: null, subject: id, prefix: 'EAAsbxP' });
        pages.push({
          id,
          name: `${name} ${suffix}`,
          username: `${name.toLowerCase().replace(/\s+/g, '')}${suffix}`,
          category,
          ownerUserId: grant.userId,
          accessToken: token.accessToken,
        });
      }
      return pages;
    });
  }

  async page(pageId: string): Promise<FbPage | null> {
    return this.store.get<FbPage>(['facebook', 'object', pageId]);
  }

  /** The Page a token may act for: its Page token, or (reads) its owner's user token. */
  authorizePage(pageId: string, token: TokenInfo, write: boolean): Promise<FbPage> {
    return authorizePage(this.store, pageId, token, write);
  }

  /** Applies the magic words to a publish call; throws Graph's error when the post must fail. */
  magic(pageId: string, text: string, contentKey: string): Promise<void> {
    return enforceMagicWords(this.store, { platform: 'facebook', accountId: pageId, text, contentKey }, FB_MAGIC);
  }

  async addPhoto(pageId: string, url: string): Promise<FbPhoto> {
    const photo: FbPhoto = { id: numericId(), pageId, url };
    await this.photos.put(photo);
    return photo;
  }

  async createItem(
    page: FbPage,
    item: Omit<FbItem, 'id' | 'createdTime' | 'permalinkUrl' | 'pageId'>,
    id?: string,
  ): Promise<FbItem> {
    const itemId = id ?? `${page.id}_${numericId()}`;
    const local = itemId.includes('_') ? itemId.split('_')[1] : itemId;
    const base = `${this.config.publicBaseUrl}/sandbox/facebook/www/${page.id}`;
    const full: FbItem = {
      ...item,
      id: itemId,
      pageId: page.id,
      createdTime: graphTime(new Date()),
      permalinkUrl: item.kind === 'video' ? `${base}/videos/${local}` : `${base}/posts/${local}`,
    };
    await this.items.add(page.id, full);
    return full;
  }

  /** The Page's items (videos or the others) created in [since, until) (unix seconds), newest first. */
  async list(pageId: string, videos: boolean, since?: number, until?: number): Promise<FbItem[]> {
    return (await this.items.of(pageId, 0, 500)).filter((item) => {
      const t = Date.parse(item.createdTime) / 1000;
      return (item.kind === 'video') === videos && !(since && t < since) && !(until && t >= until);
    });
  }
}
