import { Body, Get, Header, Param, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { AppConfig } from '@/config/config';
import {
  facebookLogin,
  graphDays,
  graphFail,
  graphComments,
  graphTime,
  lifetimeInsights,
  permalinkPage,
  SandboxToken,
  addGraphComment,
} from '../kit/sandbox/graph-sandbox';
import {
  ContainerOwner,
  containerOwner,
  ContainerRoutes,
  MetaContainers,
  SandboxMedia,
} from '../kit/sandbox/meta-containers';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { SandboxCaps } from '../kit/sandbox/sandbox-caps';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { dailyAccountMetrics, itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { LoginRoutes } from '../kit/sandbox/sandbox-login';
import type { TokenInfo } from '../kit/sandbox/sandbox-oauth';
import type { Q } from '../kit/sandbox/sandbox-request';
import { INSTAGRAM_GRAPH_VERSION as V } from './instagram.adapter';
import { IG_MEDIA, IgAccount, INSTAGRAM_CONTAINERS as IG, InstagramSandbox } from './instagram-sandbox.service';
import { SandboxStore } from '../kit/sandbox/sandbox-store';

const NET = 'instagram';

/** Simulated Instagram API with Facebook Login (Graph v23.0) under /sandbox/instagram. */
@SandboxController('instagram')
export class InstagramSandboxController {
  constructor(
    private readonly ig: InstagramSandbox,
    private readonly containers: MetaContainers,
    private readonly config: AppConfig,
    private readonly caps: SandboxCaps,
    private readonly store: SandboxStore,
  ) {}

  @Get(`${V}/me/accounts`)
  async accounts(@SandboxToken(NET) info: TokenInfo): Promise<unknown> {
    const accounts = await this.ig.accountsOf(info.grant);
    return {
      data: accounts.map((a) => ({
        id: a.pageId,
        name: a.pageName,
        instagram_business_account: {
          id: a.id,
          username: a.username,
          name: a.name,
          profile_picture_url: `${this.config.publicBaseUrl}/sandbox/_control/media/image.png?ig=${a.id}`,
        },
      })),
      paging: { cursors: { before: 'MAZDZD', after: 'MAZDZD' } },
    };
  }

  @Get(`${V}/:owner/content_publishing_limit`)
  limit(@SandboxAuth(containerOwner(IG)) account: ContainerOwner): Promise<unknown> {
    return this.containers.publishingLimit(NET, account.id, this.caps.limit(NET));
  }

  @Get(`${V}/:id/insights`)
  async insights(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string, @Query() q: Q): Promise<unknown> {
    const names = (q.metric ?? '').split(',').filter(Boolean);
    const media = await this.containers.media(NET, id);
    if (media) {
      await this.ig.authorize(media.ownerId, token);
      const { saves: saved, engagement: total_interactions, ...m } = itemMetrics(id);
      return { data: lifetimeInsights(id, { ...m, saved, total_interactions }, names) };
    }
    const account = await this.ig.authorize(id, token);
    const days = graphDays(q.since, q.until, { until: new Date(Date.now() + 86_400_000), days: 1 });
    const sum = (pick: (d: ReturnType<typeof dailyAccountMetrics>) => number): number =>
      days.reduce((s, d) => s + pick(dailyAccountMetrics(account.id, d)), 0);
    const values: Record<string, number> = {
      views: sum((d) => d.views),
      reach: sum((d) => d.reach),
      total_interactions: sum((d) => d.engagement),
      shares: sum((d) => d.shares),
    };
    if (names.some((n) => !(n in values)))
      throw graphFail(`(#100) metric[0] must be one of the following values: ${Object.keys(values).join(', ')}`, {
        code: 100,
      });
    return {
      data: names.map((n) => ({
        name: n,
        period: 'day',
        title: n,
        description: n,
        total_value: { value: values[n] },
        id: `${account.id}/insights/${n}/day`,
      })),
    };
  }

  @Get(`${V}/:id/comments`)
  async comments(@SandboxAuth(IG_MEDIA) { media }: { media: SandboxMedia }, @Req() req: Request): Promise<unknown> {
    const at = { req, publicBaseUrl: this.config.publicBaseUrl, store: this.store, network: NET };
    // Instagram shows a commenter's username and the time as Graph formats it.
    return graphComments(at, { id: media.id, publishedAt: media.timestamp }, (c) => ({
      id: c.id,
      text: c.text,
      username: c.authorName.toLowerCase().replace(/[^a-z]+/g, '.'),
      timestamp: graphTime(new Date(c.createdAt)),
    }));
  }

  /** The account comments on its own media: `message`, answers `{ id }` (POST /{ig-media-id}/comments). */
  @Post(`${V}/:id/comments`)
  async comment(
    @SandboxAuth(IG_MEDIA) ig: { media: SandboxMedia; account: IgAccount },
    @Body() body: Q,
    @Query() q: Q,
  ) {
    const item = { id: ig.media.id, author: { id: ig.account.id, name: ig.account.username } };
    const missing = '(#100) The parameter message is required.';
    return { id: (await addGraphComment(this.store, NET, item, body.message ?? q.message ?? '', missing)).id };
  }

  /** A container (status_code), a media object (permalink…) or the IG user (followers_count…). */
  @Get(`${V}/:id`)
  async node(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string): Promise<unknown> {
    const container = await this.containers.statusOf(IG, id, token);
    if (container) return container;
    const media = await this.containers.media(NET, id);
    if (media) return IG.view(media, await this.ig.authorize(media.ownerId, token));
    const account = await this.ig.authorize(id, token);
    return {
      id: account.id,
      username: account.username,
      name: account.name,
      followers_count: dailyAccountMetrics(account.id, new Date().toISOString().slice(0, 10)).followers,
      media_count: (await this.containers.recent(NET, account.id, 100)).length,
    };
  }

  /** What a permalink opens: a tiny page showing the post. */
  @Get('www/p/:id')
  @Header('Content-Type', 'text/html; charset=utf-8')
  async permalink(@Param('id') id: string): Promise<string> {
    const media = await this.containers.media(NET, id);
    return permalinkPage('Instagram', media && { ...media, time: media.timestamp });
  }
}

/** The Instagram simulator: Facebook Login, its own routes, and the kit's container routes (create, publish, list). */
export const INSTAGRAM_SIMULATOR = {
  controllers: [
    LoginRoutes(facebookLogin(NET, 'Instagram app', V, { short: 'EAAsbxJ', long: 'EAAsbxI' })),
    InstagramSandboxController,
    ContainerRoutes(IG),
  ],
  providers: [InstagramSandbox],
};
