import { Body, Get, Header, Param, Post, Query } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import {
  dailyInsights,
  facebookLogin,
  GraphCommentRoutes,
  graphFail,
  lifetimeInsights,
  numericId,
  permalinkPage,
  SandboxToken,
} from '../kit/sandbox/graph-sandbox';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { SandboxMediaFetch } from '../kit/sandbox/sandbox-media';
import { itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { LoginRoutes } from '../kit/sandbox/sandbox-login';
import { SandboxOAuth, type TokenInfo } from '../kit/sandbox/sandbox-oauth';
import type { Q } from '../kit/sandbox/sandbox-request';
import { FACEBOOK_GRAPH_VERSION as V, FACEBOOK_RULES } from './facebook.adapter';
import {
  FacebookSandbox,
  FACEBOOK_COMMENTS,
  FB_PAGE_READ,
  FB_PAGE_WRITE,
  FbItem,
  FbPage,
} from './facebook-sandbox.service';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';

const NET = 'facebook';

/** Simulated Facebook Login + Pages API (Graph v23.0) under /sandbox/facebook. */
@SandboxController('facebook')
export class FacebookSandboxController {
  constructor(
    private readonly media: SandboxMediaFetch,
    private readonly fb: FacebookSandbox,
    private readonly oauth: SandboxOAuth,
    private readonly config: AppConfig,
  ) {}

  @Get(`${V}/me`)
  async me(@SandboxToken(NET) info: TokenInfo): Promise<{ id: string; name: string }> {
    if (info.subject) {
      const page = await this.fb.page(info.subject);
      return { id: info.subject, name: page?.name ?? 'Sandbox Page' };
    }
    return { id: info.grant.userId, name: `Sandbox User ${info.grant.userId.slice(-4)}` };
  }

  @Get(`${V}/me/accounts`)
  async accounts(@SandboxToken(NET) info: TokenInfo): Promise<unknown> {
    if (info.subject)
      throw graphFail('(#100) Tried accessing nonexisting field (accounts) on node type (Page)', { code: 100 });
    const pages = await this.fb.pagesOf(info.grant, this.oauth);
    return {
      data: pages.map((p) => ({
        access_token: p.accessToken,
        category: p.category,
        category_list: [{ id: '2256', name: p.category }],
        name: p.name,
        id: p.id,
        username: p.username,
        tasks: ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'],
        picture: { data: { url: `${this.config.publicBaseUrl}/sandbox/_control/media/image.png?page=${p.id}` } },
      })),
      paging: { cursors: { before: 'MAZDZD', after: 'MgZDZD' } },
    };
  }

  @Post(`${V}/:pageId/feed`)
  async feed(@SandboxAuth(FB_PAGE_WRITE) page: FbPage, @Body() body: Q): Promise<{ id: string }> {
    const message = body.message ?? '';
    const photoIds = Object.keys(body)
      .filter((k) => /^attached_media\[\d+\]$/.test(k))
      .map((k) => (JSON.parse(body[k] ?? '{}') as { media_fbid?: string }).media_fbid ?? '');
    if (!message && !body.link && photoIds.length === 0)
      throw graphFail('(#100) Missing message or attachment.', { code: 100 });
    if ([...message].length > FACEBOOK_RULES.maxText) throw graphFail('(#100) The message is too long.', { code: 100 });
    const urls: string[] = [];
    for (const id of photoIds) {
      const photo = await this.fb.photos.get(id);
      if (!photo || photo.pageId !== page.id) throw graphFail(`(#100) Invalid media_fbid: ${id}`, { code: 100 });
      urls.push(photo.url);
    }
    await this.fb.magic(page.id, message, [body.link ?? '', ...urls].join('|'));
    const item = await this.fb.createItem(page, {
      kind: photoIds.length ? 'album' : 'status',
      message,
      link: body.link,
      mediaUrls: urls,
    });
    return { id: item.id };
  }

  @Post(`${V}/:pageId/photos`)
  async photos(@SandboxAuth(FB_PAGE_WRITE) page: FbPage, @Body() body: Q): Promise<{ id: string; post_id?: string }> {
    const problem = await this.media.problem(body.url, 'image');
    if (problem) throw graphFail(`(#324) Missing or invalid image file. ${problem}`, { code: 324 });
    const photo = await this.fb.addPhoto(page.id, body.url ?? '');
    if (body.published === 'false') return { id: photo.id };
    const caption = body.caption ?? body.message ?? '';
    await this.fb.magic(page.id, caption, photo.url);
    const item = await this.fb.createItem(
      page,
      { kind: 'photo', message: caption, mediaUrls: [photo.url] },
      `${page.id}_${photo.id}`,
    );
    return { id: photo.id, post_id: item.id };
  }

  @Post(`${V}/:pageId/videos`)
  async videos(@SandboxAuth(FB_PAGE_WRITE) page: FbPage, @Body() body: Q): Promise<{ id: string }> {
    const problem = await this.media.problem(body.file_url, 'video');
    if (problem)
      throw graphFail(`(#352) Sorry, the video file you selected is in a format that we don't support. ${problem}`, {
        code: 352,
      });
    const description = body.description ?? '';
    await this.fb.magic(page.id, description, body.file_url ?? '');
    const item = await this.fb.createItem(
      page,
      { kind: 'video', message: description, mediaUrls: [body.file_url ?? ''] },
      numericId(),
    );
    return { id: item.id };
  }

  @Get(`${V}/:pageId/published_posts`)
  publishedPosts(@SandboxAuth(FB_PAGE_READ) page: FbPage, @Query() q: Q): Promise<unknown> {
    return this.list(page, q, false);
  }

  @Get(`${V}/:pageId/videos`)
  listVideos(@SandboxAuth(FB_PAGE_READ) page: FbPage, @Query() q: Q): Promise<unknown> {
    return this.list(page, q, true);
  }

  @Get(`${V}/:id/insights`)
  async insights(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string, @Query() q: Q): Promise<unknown> {
    const item = await this.fb.items.get(id);
    if (item) {
      await this.fb.authorizePage(item.pageId, token, false);
      const { views, reach } = itemMetrics(id);
      const values = { post_media_view: views, post_total_media_view_unique: reach };
      return { data: lifetimeInsights(id, values, Object.keys(values)) };
    }
    const page = await this.fb.authorizePage(id, token, false);
    const all = {
      page_media_view: (m: { views: number }) => m.views,
      page_total_media_view_unique: (m: { reach: number }) => m.reach,
      page_post_engagements: (m: { engagement: number }) => m.engagement,
      page_follows: (m: { followers: number }) => m.followers,
    };
    const wanted = (q.metric ?? '').split(',').filter((n): n is keyof typeof all => n in all);
    if (wanted.length === 0) throw graphFail('(#100) The value must be a valid insights metric', { code: 100 });
    return {
      data: dailyInsights(page.id, Object.fromEntries(wanted.map((n) => [n, all[n]])), q.since, q.until),
      paging: {},
    };
  }

  @Get(`${V}/:id`)
  async node(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string): Promise<unknown> {
    const item = await this.fb.items.get(id);
    if (!item) {
      const page = await this.fb.authorizePage(id, token, false);
      return { id: page.id, name: page.name, username: page.username, category: page.category };
    }
    await this.fb.authorizePage(item.pageId, token, false);
    const m = itemMetrics(id);
    return {
      ...this.view(item, item.kind === 'video' ? 'description' : 'message'),
      shares: { count: m.shares },
      comments: { data: [], summary: { order: 'ranked', total_count: m.comments, can_comment: true } },
      reactions: { data: [], summary: { total_count: m.likes, viewer_reaction: 'NONE' } },
    };
  }

  /** What a permalink opens: a tiny page showing the post. */
  @Get('www/:pageId/:kind/:id')
  @Header('Content-Type', 'text/html; charset=utf-8')
  async permalink(
    @Param('pageId') pageId: string,
    @Param('kind') kind: string,
    @Param('id') id: string,
  ): Promise<string> {
    const item = await this.fb.items.get(kind === 'videos' ? id : `${pageId}_${id}`);
    return permalinkPage('Facebook', item && { text: item.message, mediaUrls: item.mediaUrls, time: item.createdTime });
  }

  private async list(page: FbPage, q: Q, videos: boolean): Promise<unknown> {
    const items = await this.fb.list(page.id, videos, Number(q.since) || undefined, Number(q.until) || undefined);
    return { data: items.slice(0, Number(q.limit) || 25).map((i) => this.view(i, videos ? 'description' : 'message')) };
  }

  private view(i: FbItem, textField: 'message' | 'description'): Record<string, unknown> {
    return {
      id: i.id,
      [textField]: i.message,
      created_time: i.createdTime,
      permalink_url: i.permalinkUrl,
      shares: { count: itemMetrics(i.id).shares },
      ...(i.link ? { link: i.link } : {}),
    };
  }
}

/** The Facebook simulator: Facebook Login and the Pages API. */
export const FACEBOOK_SIMULATOR = {
  controllers: [
    LoginRoutes(facebookLogin(NET, 'Facebook app', V, { short: 'EAAsbxS', long: 'EAAsbxL' })),
    FacebookSandboxController,
    GraphCommentRoutes(FACEBOOK_COMMENTS),
  ],
  providers: [FacebookSandbox],
};
