import { Get, Param, Query } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import {
  facebookLogin,
  GraphCommentRoutes,
  graphDays,
  graphFail,
  lifetimeInsights,
  SandboxToken,
} from '../kit/sandbox/graph-sandbox';
import { ContainerRoutes, MetaContainers } from '../kit/sandbox/meta-containers';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { dailyAccountMetrics, itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { LoginRoutes } from '../kit/sandbox/sandbox-login';
import type { TokenInfo } from '../kit/sandbox/sandbox-oauth';
import type { Q } from '../kit/sandbox/sandbox-request';
import { INSTAGRAM_GRAPH_VERSION as V } from './instagram.adapter';
import { INSTAGRAM_COMMENTS, INSTAGRAM_CONTAINERS as IG, InstagramSandbox } from './instagram-sandbox.service';

const NET = 'instagram';

/** Simulated Instagram API with Facebook Login (Graph v23.0) under /sandbox/instagram. */
@SandboxController('instagram')
export class InstagramSandboxController {
  constructor(
    private readonly ig: InstagramSandbox,
    private readonly containers: MetaContainers,
    private readonly config: AppConfig,
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

  /** A container (status_code), a media object (permalink…) or the IG user (followers_count…). */
  @Get(`${V}/:id`)
  async node(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string): Promise<unknown> {
    const node = await this.containers.node(IG, id, token);
    if (node) return node;
    const account = await this.ig.authorize(id, token);
    return {
      id: account.id,
      username: account.username,
      name: account.name,
      followers_count: dailyAccountMetrics(account.id, new Date().toISOString().slice(0, 10)).followers,
      media_count: (await this.containers.recent(NET, account.id, 100)).length,
    };
  }
}

/** The Instagram simulator: Facebook Login, its own routes, and the kit's container routes (create, publish, list). */
export const INSTAGRAM_SIMULATOR = {
  controllers: [
    LoginRoutes(facebookLogin(NET, 'Instagram app', V, { short: 'EAAsbxJ', long: 'EAAsbxI' })),
    InstagramSandboxController,
    ContainerRoutes(IG),
    GraphCommentRoutes(INSTAGRAM_COMMENTS),
  ],
  providers: [InstagramSandbox],
};
