import { Get, Param, Query } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { graphDays, graphFail, graphNotFound, lifetimeInsights, SandboxToken } from '../kit/sandbox/graph-sandbox';
import { ContainerOwner, containerOwner, ContainerRoutes, MetaContainers } from '../kit/sandbox/meta-containers';
import { SandboxAuth } from '../kit/sandbox/sandbox-auth';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { LoginRoutes } from '../kit/sandbox/sandbox-login';
import type { TokenInfo } from '../kit/sandbox/sandbox-oauth';
import type { Q } from '../kit/sandbox/sandbox-request';
import { SandboxStore } from '../kit/sandbox/sandbox-store';
import { THREADS_CONTAINERS as TH, THREADS_LOGIN, threadsUser, threadsUserInsights } from './threads-sandbox.service';

const NET = 'threads';
const USER_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'followers_count'];

/** Simulated Threads API (graph.threads.net, v1.0) under /sandbox/threads. */
@SandboxController('threads')
export class ThreadsSandboxController {
  constructor(
    private readonly store: SandboxStore,
    private readonly containers: MetaContainers,
    private readonly config: AppConfig,
  ) {}

  @Get('v1.0/me')
  async me(@SandboxToken(NET) token: TokenInfo): Promise<unknown> {
    const user = await threadsUser(this.store, token.grant);
    return {
      id: user.id,
      username: user.username,
      name: user.name,
      threads_profile_picture_url: `${this.config.publicBaseUrl}/sandbox/_control/media/image.png?threads=${user.id}`,
    };
  }

  @Get('v1.0/:owner/threads_insights')
  userInsights(@SandboxAuth(containerOwner(TH)) user: ContainerOwner, @Query() q: Q): unknown {
    const names = (q.metric ?? '').split(',').filter(Boolean);
    if (!names.length || names.some((n) => !USER_METRICS.includes(n)))
      throw graphFail(`Param metric must be a list of: ${USER_METRICS.join(', ')}`, {
        code: 100,
        type: 'THApiException',
      });
    const days = graphDays(q.since, q.until, { until: new Date(Date.now() + 86_400_000), days: 1 }).slice(0, 93);
    return { data: threadsUserInsights(user.id, days, names) };
  }

  @Get('v1.0/:id/insights')
  async mediaInsights(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string, @Query() q: Q): Promise<unknown> {
    const media = await this.containers.media(NET, id);
    if (!media) throw graphNotFound(id, 'THApiException', '');
    await TH.ownerOf(this.store, media.ownerId, token);
    const m = itemMetrics(id);
    const values = { views: m.views, likes: m.likes, replies: m.comments, reposts: m.shares, quotes: 0, shares: 0 };
    return { data: lifetimeInsights(id, values, (q.metric ?? '').split(',')) };
  }

  /** A container (status, error_message) or a published thread. */
  @Get('v1.0/:id')
  async node(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string): Promise<unknown> {
    const node = await this.containers.node(TH, id, token);
    if (!node) throw graphNotFound(id, 'THApiException', '');
    return node;
  }
}

/** The Threads simulator: its login, its own routes, and the kit's container routes (create, publish, list). */
export const THREADS_SIMULATOR = {
  controllers: [LoginRoutes(THREADS_LOGIN), ThreadsSandboxController, ContainerRoutes(TH)],
  providers: [],
};
