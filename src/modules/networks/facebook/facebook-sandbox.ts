import { Injectable } from '@nestjs/common';
import {
  dayInsights,
  type DayMetric,
  facebookLogin,
  graphAuth,
  graphDays,
  graphCommentRoutes,
  type GraphCommentsDialect,
  graphFail,
  graphMagicErrors,
  graphNotFound,
  graphTime,
  lifetimeInsights,
  numericId,
  ownObjects,
  permalinkPage,
} from '../kit/sandbox/graph-sandbox';
import { enforceMagicWords } from '../kit/sandbox/magic-words';
import type { SandboxAuthSpec } from '../kit/sandbox/sandbox-auth';
import { simulator } from '../kit/sandbox/sandbox-login';
import { itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { SandboxGrant, sandboxNumericId, type TokenInfo } from '../kit/sandbox/sandbox-oauth';
import { pageSize, type Q } from '../kit/sandbox/sandbox-request';
import { HTML, routesOf } from '../kit/sandbox/sandbox-routes';
import { SimulatorState } from '../kit/sandbox/sandbox-state';
import type { SandboxStore } from '../kit/sandbox/sandbox-store';
import { FACEBOOK_GRAPH_VERSION as V, FACEBOOK_RULES } from './facebook.adapter';

const NET = 'facebook';

type FbPage = Awaited<ReturnType<FacebookSandbox['pagesOf']>>[number];

interface FbItem {
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
type FbPhoto = { id: string; pageId: string; url: string };

const PAGE_NAMES = [
  ['Sandbox Bakery', 'Bakery'],
  ['Sandbox Bikes', 'Bicycle Shop'],
  ['Sandbox Books', 'Book Store'],
] as const;

const FB_MAGIC = graphMagicErrors();
const FB_TOKEN = graphAuth(NET);

/** A Page's insights: daily series (end_time the next day at 08:00 UTC). */
const PAGE_METRICS: Record<string, DayMetric> = {
  page_media_view: { pick: (m) => m.views, endTime: 'T08:00:00+0000' },
  page_total_media_view_unique: { pick: (m) => m.reach, endTime: 'T08:00:00+0000' },
  page_post_engagements: { pick: (m) => m.engagement, endTime: 'T08:00:00+0000' },
  page_follows: { pick: (m) => m.followers, endTime: 'T08:00:00+0000' },
};

/** The Page a token may act for: its Page token, or (reads) its owner's user token. */
async function authorizePage(store: SandboxStore, pageId: string, token: TokenInfo, write: boolean): Promise<FbPage> {
  const page = await store.get<FbPage>(['facebook', 'object', pageId]);
  if (!page) throw graphNotFound(pageId, 'GraphMethodException', 'Unsupported post request. ', true);
  const own =
    token.subject === page.id || (!write && token.subject === null && token.grant.userId === page.ownerUserId);
  const needsPageToken =
    '(#200) The permission(s) pages_manage_posts are not available. It could be because the request needs a Page access token.';
  if (!own) throw graphFail(needsPageToken, { code: 200, status: 403 });
  return page;
}

/** The route's :pageId, when the call's token may post as it (its Page token) or, to read, its owner's user token. */
const fbPage = (write: boolean): SandboxAuthSpec<FbPage> => ({
  ...FB_TOKEN,
  caller: (info, { req, store }) => authorizePage(store, req.params.pageId as string, info, write),
});
const [FB_PAGE_WRITE, FB_PAGE_READ] = [fbPage(true), fbPage(false)];

/** Facebook's comments on a Page's items: the Page comments; ids are `<post id>_<comment id>`. */
const FACEBOOK_COMMENTS: GraphCommentsDialect = {
  network: 'facebook',
  version: V,
  find: async (store, id) => {
    const item = await store.get<FbItem>([NET, 'item', id]);
    return item && { publishedAt: item.createdTime, ownerId: item.pageId };
  },
  author: authorizePage,
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
  protected readonly network = NET;
  readonly uploads = this.records<FbPhoto>('photo', (p) => p.id);
  /** By page, newest first. */
  readonly items = this.records<FbItem>('item', (i) => i.id);

  /** The Page's items (videos or the others) created in [since, until) (unix seconds), newest first. */
  async list(page: FbPage, q: Q, videos: boolean): Promise<unknown> {
    const [since, until] = [Number(q.since) || undefined, Number(q.until) || undefined];
    const items = (await this.items.of(page.id, 0, 500)).filter((item) => {
      const t = Date.parse(item.createdTime) / 1000;
      return (item.kind === 'video') === videos && !(since && t < since) && !(until && t >= until);
    });
    return { data: items.slice(0, pageSize(q.limit, 25, 100)).map((i) => this.view(i)) };
  }

  /** Every grant is a new user who manages three new Pages (so a page picker can be exercised). */
  pagesOf(grant: SandboxGrant) {
    const suffix = grant.userId.slice(-4);
    return ownObjects(this.store, NET, grant.userId, async () => {
      const pages = [];
      for (const [name, category] of PAGE_NAMES) {
        const id = sandboxNumericId();
        const token = await this.oauth.issueTokens(grant, { accessTtlSeconds: null, subject: id, prefix: 'EAAsbxP' });
        const username = `${name.toLowerCase().replace(/\s+/g, '')}${suffix}`;
        const page = { id, name: `${name} ${suffix}`, username, category, ownerUserId: grant.userId };
        pages.push({ ...page, accessToken: token.accessToken });
      }
      return pages;
    });
  }

  /** The Page's new item, once the magic words let it through; its id is `id`, or `<page id>_<post id>` (a video's bare). */
  async publish(page: FbPage, item: Pick<FbItem, 'kind' | 'message' | 'link' | 'mediaUrls'>, key: string, id?: string) {
    const attempt = { platform: NET, accountId: page.id, text: item.message, contentKey: key };
    await enforceMagicWords(this.store, attempt, FB_MAGIC);
    const itemId = id ?? (item.kind === 'video' ? numericId() : `${page.id}_${numericId()}`);
    const local = itemId.split('_').at(-1);
    const permalinkUrl = `${this.base}/www/${page.id}/${item.kind === 'video' ? 'videos' : 'posts'}/${local}`;
    const full: FbItem = { ...item, id: itemId, pageId: page.id, createdTime: graphTime(new Date()), permalinkUrl };
    return this.items.add(page.id, full);
  }

  /** An item as Graph shows it (a video's text is its description). */
  view(i: FbItem): Record<string, unknown> {
    return {
      id: i.id,
      [i.kind === 'video' ? 'description' : 'message']: i.message,
      created_time: i.createdTime,
      permalink_url: i.permalinkUrl,
      shares: { count: itemMetrics(i.id).shares },
      ...(i.link ? { link: i.link } : {}),
    };
  }
}

const route = routesOf<FacebookSandbox>();

const FACEBOOK_ROUTES = [
  route(`GET ${V}/me`, FB_TOKEN, async ({ caller: info }, fb) => {
    if (info.subject) {
      const page = await fb.store.get<FbPage>([NET, 'object', info.subject]);
      return { id: info.subject, name: page?.name ?? 'Sandbox Page' };
    }
    return { id: info.grant.userId, name: `Sandbox User ${info.grant.userId.slice(-4)}` };
  }),
  route(`GET ${V}/me/accounts`, FB_TOKEN, async ({ caller: info }, fb) => {
    if (info.subject)
      throw graphFail('(#100) Tried accessing nonexisting field (accounts) on node type (Page)', { code: 100 });
    const pages = await fb.pagesOf(info.grant);
    return {
      data: pages.map((p) => ({
        access_token: p.accessToken,
        category: p.category,
        category_list: [{ id: '2256', name: p.category }],
        name: p.name,
        id: p.id,
        username: p.username,
        tasks: ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'],
        picture: { data: { url: fb.sampleMedia(`image.png?page=${p.id}`) } },
      })),
      paging: { cursors: { before: 'MAZDZD', after: 'MgZDZD' } },
    };
  }),
  route({ at: `POST ${V}/:pageId/feed`, status: 201 }, FB_PAGE_WRITE, async ({ body, caller: page }, fb) => {
    const message = body.message ?? '';
    const photoIds = Object.keys(body)
      .filter((k) => /^attached_media\[\d+\]$/.test(k))
      .map((k) => (JSON.parse(body[k] ?? '{}') as { media_fbid?: string }).media_fbid ?? '');
    if (!message && !body.link && photoIds.length === 0)
      throw graphFail('(#100) Missing message or attachment.', { code: 100 });
    if ([...message].length > FACEBOOK_RULES.maxText) throw graphFail('(#100) The message is too long.', { code: 100 });
    const urls: string[] = [];
    for (const id of photoIds) {
      const photo = await fb.uploads.get(id);
      if (!photo || photo.pageId !== page.id) throw graphFail(`(#100) Invalid media_fbid: ${id}`, { code: 100 });
      urls.push(photo.url);
    }
    const kind = photoIds.length ? 'album' : 'status';
    const contentKey = [body.link ?? '', ...urls].join('|');
    return { id: (await fb.publish(page, { kind, message, link: body.link, mediaUrls: urls }, contentKey)).id };
  }),
  route({ at: `POST ${V}/:pageId/photos`, status: 201 }, FB_PAGE_WRITE, async ({ body, caller: page }, fb) => {
    const problem = await fb.media.problem(body.url, 'image');
    if (problem) throw graphFail(`(#324) Missing or invalid image file. ${problem}`, { code: 324 });
    const photo: FbPhoto = { id: numericId(), pageId: page.id, url: body.url ?? '' };
    await fb.uploads.put(photo);
    if (body.published === 'false') return { id: photo.id };
    const caption = body.caption ?? body.message ?? '';
    const item = { kind: 'photo' as const, message: caption, mediaUrls: [photo.url] };
    return { id: photo.id, post_id: (await fb.publish(page, item, photo.url, `${page.id}_${photo.id}`)).id };
  }),
  route({ at: `POST ${V}/:pageId/videos`, status: 201 }, FB_PAGE_WRITE, async ({ body, caller: page }, fb) => {
    const problem = await fb.media.problem(body.file_url, 'video');
    const unsupported = "(#352) Sorry, the video file you selected is in a format that we don't support.";
    if (problem) throw graphFail(`${unsupported} ${problem}`, { code: 352 });
    const url = body.file_url ?? '';
    const item = await fb.publish(page, { kind: 'video', message: body.description ?? '', mediaUrls: [url] }, url);
    return { id: item.id };
  }),
  route(`GET ${V}/:pageId/published_posts`, FB_PAGE_READ, ({ q, caller: page }, fb) => fb.list(page, q, false)),
  route(`GET ${V}/:pageId/videos`, FB_PAGE_READ, ({ q, caller: page }, fb) => fb.list(page, q, true)),
  route(`GET ${V}/:id/insights`, FB_TOKEN, async ({ q, params: { id }, caller: token }, fb) => {
    // A post's (its Page may read it) or the Page's own.
    const item = await fb.items.get(id);
    const page = await authorizePage(fb.store, item?.pageId ?? id, token, false);
    if (item) {
      const { views, reach } = itemMetrics(id);
      const values = { post_media_view: views, post_total_media_view_unique: reach };
      return { data: lifetimeInsights(id, values, Object.keys(values)) };
    }
    // The asked metrics it knows, each once (a week before today by default).
    const wanted = [...new Set((q.metric ?? '').split(',').filter((n) => Object.hasOwn(PAGE_METRICS, n)))];
    if (wanted.length === 0) throw graphFail('(#100) The value must be a valid insights metric', { code: 100 });
    const days = graphDays(q, { until: Date.now(), days: 7 }).slice(0, 93);
    return { data: dayInsights(page.id, days, wanted, PAGE_METRICS), paging: {} };
  }),
  route(`GET ${V}/:id`, FB_TOKEN, async ({ params: { id }, caller: token }, fb) => {
    const item = await fb.items.get(id);
    const page = await authorizePage(fb.store, item?.pageId ?? id, token, false);
    if (!item) return { id: page.id, name: page.name, username: page.username, category: page.category };
    const m = itemMetrics(id);
    return {
      ...fb.view(item),
      comments: { data: [], summary: { order: 'ranked', total_count: m.comments, can_comment: true } },
      reactions: { data: [], summary: { total_count: m.likes, viewer_reaction: 'NONE' } },
    };
  }),
  route({ at: 'GET www/:pageId/:kind/:id', headers: HTML }, null, async ({ params: { pageId, kind, id } }, fb) => {
    const item = await fb.items.get(kind === 'videos' ? id : `${pageId}_${id}`);
    return permalinkPage('Facebook', item && { text: item.message, mediaUrls: item.mediaUrls, time: item.createdTime });
  }),
];

export const FACEBOOK_SIMULATOR = simulator(
  facebookLogin(NET, 'Facebook app', V, { short: 'EAAsbxS', long: 'EAAsbxL' }),
  FacebookSandbox,
  [...FACEBOOK_ROUTES, ...graphCommentRoutes(FACEBOOK_COMMENTS)],
);
