import { Injectable } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { graphFail, graphMagicErrors, numericId } from '../kit/sandbox/graph-sandbox';
import { enforceMagicWords } from '../kit/sandbox/magic-words';
import { SandboxGrant, SandboxOAuth, sandboxNumericId, TokenInfo } from '../kit/sandbox/sandbox-oauth';
import { SandboxStore } from '../kit/sandbox/sandbox-store';

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

interface FbPhoto {
  id: string;
  pageId: string;
  url: string;
  published: boolean;
}

const PAGE_NAMES = [
  ['Sandbox Bakery', 'Bakery'],
  ['Sandbox Bikes', 'Bicycle Shop'],
  ['Sandbox Books', 'Book Store'],
] as const;

const FB_MAGIC = graphMagicErrors();

@Injectable()
export class FacebookSandbox {
  constructor(
    private readonly store: SandboxStore,
    private readonly oauth: SandboxOAuth,
    private readonly config: AppConfig,
  ) {}

  /** Every grant is a new user who manages three new Pages (so a page picker can be exercised). */
  async pagesOf(grant: SandboxGrant): Promise<FbPage[]> {
    const existing = await this.store.get<FbPage[]>(['facebook', 'user', grant.userId, 'pages']);
    if (existing) return existing;
    const suffix = grant.userId.slice(-4);
    const pages: FbPage[] = [];
    for (const [name, category] of PAGE_NAMES) {
      const id = sandboxNumericId();
      const { accessToken } = await this.oauth.issueTokens(grant, {
        accessTtlSeconds: null,
        subject: id,
        prefix: 'EAAsbxP',
      });
      pages.push({
        id,
        name: `${name} ${suffix}`,
        username: `${name.toLowerCase().replace(/\s+/g, '')}${suffix}`,
        category,
        ownerUserId: grant.userId,
        accessToken,
      });
    }
    if (!(await this.store.putNew(['facebook', 'user', grant.userId, 'pages'], pages)))
      return (await this.store.get<FbPage[]>(['facebook', 'user', grant.userId, 'pages'])) ?? [];
    for (const p of pages) await this.store.put(['facebook', 'page', p.id], p);
    return pages;
  }

  async page(pageId: string): Promise<FbPage | null> {
    return this.store.get<FbPage>(['facebook', 'page', pageId]);
  }

  /** The Page a token may act for: its Page token, or (reads) its owner's user token. */
  async authorizePage(pageId: string, token: TokenInfo, write: boolean): Promise<FbPage> {
    const page = await this.page(pageId);
    if (!page)
      throw graphFail(
        `Unsupported post request. Object with ID '${pageId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        {
          code: 100,
          subcode: 33,
          type: 'GraphMethodException',
        },
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

  /** Applies the magic words to a publish call; throws the network's error when it must fail. */
  magic(pageId: string, text: string, contentKey: string): Promise<void> {
    return enforceMagicWords(this.store, { platform: 'facebook', accountId: pageId, text: text, contentKey }, FB_MAGIC);
  }

  async addPhoto(pageId: string, url: string): Promise<FbPhoto> {
    const photo: FbPhoto = { id: numericId(), pageId, url, published: false };
    await this.store.put(['facebook', 'photo', photo.id], photo);
    return photo;
  }

  async photo(id: string): Promise<FbPhoto | null> {
    return this.store.get<FbPhoto>(['facebook', 'photo', id]);
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
    await this.store.put(['facebook', 'item', itemId], full);
    await this.store.push(['facebook', 'page', page.id, 'items'], itemId);
    return full;
  }

  async item(id: string): Promise<FbItem | null> {
    return this.store.get<FbItem>(['facebook', 'item', id]);
  }

  /** The Page's items, newest first. */
  async items(pageId: string, filter: (i: FbItem) => boolean, since?: number, until?: number): Promise<FbItem[]> {
    const ids = await this.store.list<string>(['facebook', 'page', pageId, 'items'], 0, 499);
    const out: FbItem[] = [];
    for (const id of ids) {
      const item = await this.item(id);
      if (!item || !filter(item)) continue;
      const t = Date.parse(item.createdTime) / 1000;
      if ((since && t < since) || (until && t >= until)) continue;
      out.push(item);
    }
    return out;
  }
}

/** Graph's time format: 2026-03-01T10:00:00+0000 */
export function graphTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, '+0000');
}
