import { Body, Get, Header, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@/config/config';
import {
  graphDays,
  graphFail,
  GraphToken,
  graphNotFound,
  lifetimeInsights,
  longLivedToken,
  oauthFail,
  permalinkPage,
  SandboxToken,
} from '../kit/sandbox/graph-sandbox';
import { MetaContainers, SandboxMedia } from '../kit/sandbox/meta-containers';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { addOwnComment, commentRefusal } from '../kit/sandbox/sandbox-comments';
import { SandboxStore } from '../kit/sandbox/sandbox-store';
import { itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { SandboxOAuth, TokenInfo } from '../kit/sandbox/sandbox-oauth';
import type { Q } from '../kit/sandbox/sandbox-request';
import { THREADS_CONTAINERS as TH, ThreadsSandbox, threadsUserInsights } from './threads-sandbox.service';
import { firstCapLimit } from '../kit/caps';
import { threadsNetwork } from './threads.network';

const NET = 'threads';
const USER_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'followers_count'];

/** Simulated Threads API (graph.threads.net, v1.0) under /sandbox/threads. */
@SandboxController('threads')
export class ThreadsSandboxController {
  constructor(
    private readonly threads: ThreadsSandbox,
    private readonly containers: MetaContainers,
    private readonly oauth: SandboxOAuth,
    private readonly config: AppConfig,
    private readonly store: SandboxStore,
  ) {}

  @Get('oauth/authorize')
  authorize(@Query() q: Q, @Res() res: Response): Promise<void> {
    return this.oauth.authorizeQuery(q, { network: NET, appLabel: 'Threads app', pkce: false }, res);
  }

  /** code → short-lived token (1 h) and the user id. */
  /** The network's publishing cap (its definition's, NETWORK_CAPS applied): media_publish refuses past it. */
  private dailyQuota(): number {
    return firstCapLimit(threadsNetwork, this.config.networkCaps);
  }

  @Post('oauth/access_token')
  async token(@Body() b: Q): Promise<{ access_token: string; user_id: string }> {
    if (!b.client_id || !b.client_secret)
      throw graphFail('Missing client_id or client_secret parameter.', { code: 101 });
    if (b.grant_type !== 'authorization_code') throw graphFail('Unsupported grant_type.', { code: 100 });
    const grant = await this.oauth
      .redeemCode(NET, { code: b.code ?? '', clientId: b.client_id, redirectUri: b.redirect_uri ?? '' })
      .catch(oauthFail);
    const t = await this.oauth.issueTokens(grant, { accessTtlSeconds: 3600, prefix: 'THsbxS' });
    return { access_token: t.accessToken, user_id: (await this.threads.userOf(grant)).id };
  }

  @Get('access_token')
  exchange(@Query() q: Q): Promise<GraphToken> {
    if (q.grant_type !== 'th_exchange_token' || !q.client_secret)
      throw graphFail('Invalid grant_type or missing client_secret.', { code: 100 });
    return longLivedToken(this.oauth, NET, q.access_token, 'THsbxL');
  }

  @Get('refresh_access_token')
  refresh(@Query() q: Q): Promise<GraphToken> {
    if (q.grant_type !== 'th_refresh_token') throw graphFail('Invalid grant_type.', { code: 100 });
    return longLivedToken(this.oauth, NET, q.access_token, 'THsbxL');
  }

  @Get('v1.0/me')
  async me(@SandboxToken(NET) token: TokenInfo): Promise<unknown> {
    const user = await this.threads.userOf(token.grant);
    return {
      id: user.id,
      username: user.username,
      name: user.name,
      threads_profile_picture_url: `${this.config.publicBaseUrl}/sandbox/_control/media/image.png?threads=${user.id}`,
    };
  }

  /** Creates a container: TEXT, IMAGE (image_url), VIDEO (video_url) or CAROUSEL (children). */
  @Post('v1.0/:userId/threads')
  async createContainer(
    @SandboxToken(NET) token: TokenInfo,
    @Param('userId') userId: string,
    @Body() body: Q,
  ): Promise<{ id: string }> {
    const user = await this.threads.authorize(userId, token);
    if (!body.reply_to_id) return this.containers.createFrom(TH, user.id, body);
    // A reply: the sandbox user may reply to their own threads (the owner's permission).
    const root = await this.containers.media(NET, body.reply_to_id);
    if (!root || root.ownerId !== user.id)
      throw graphFail('Invalid parameter: reply_to_id', { code: 100, type: 'THApiException' });
    const created = await this.containers.createFrom(TH, user.id, body);
    await this.store.put([NET, 'reply-to', created.id], root.id);
    return created;
  }

  @Post('v1.0/:userId/threads_publish')
  async publish(
    @SandboxToken(NET) token: TokenInfo,
    @Param('userId') userId: string,
    @Body() body: Q,
  ): Promise<{ id: string }> {
    const user = await this.threads.authorize(userId, token);
    const permalinkBase = `${this.config.publicBaseUrl}/sandbox/threads/www/@${user.username}/post`;
    const replyTo = body.creation_id ? await this.store.get<string>([NET, 'reply-to', body.creation_id]) : null;
    if (!replyTo) return this.containers.publishFrom(TH, user.id, body.creation_id, permalinkBase, this.dailyQuota());
    // A reply (a first comment): its own magic word; no post quota, no post magic words.
    const c = await this.containers.get(NET, body.creation_id ?? '');
    const refused = commentRefusal(NET, c?.text ?? '');
    if (refused) throw graphFail(refused, { code: 100, type: 'THApiException' });
    const reply = await this.containers.publishFrom(TH, user.id, body.creation_id, permalinkBase, this.dailyQuota(), {
      reply: true,
    });
    await addOwnComment(this.store, NET, replyTo, { id: user.id, name: user.username }, c?.text ?? '', reply.id);
    return reply;
  }

  @Get('v1.0/:userId/threads')
  async list(@SandboxToken(NET) token: TokenInfo, @Param('userId') userId: string, @Query() q: Q): Promise<unknown> {
    const user = await this.threads.authorize(userId, token);
    return this.containers.listPage(NET, user.id, q.limit, (m) => this.view(m, user.username));
  }

  @Get('v1.0/:userId/threads_publishing_limit')
  async limit(@SandboxToken(NET) token: TokenInfo, @Param('userId') userId: string): Promise<unknown> {
    const user = await this.threads.authorize(userId, token);
    return this.containers.publishingLimit(NET, user.id, this.dailyQuota());
  }

  @Get('v1.0/:userId/threads_insights')
  async userInsights(
    @SandboxToken(NET) token: TokenInfo,
    @Param('userId') userId: string,
    @Query() q: Q,
  ): Promise<unknown> {
    const user = await this.threads.authorize(userId, token);
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
    await this.threads.authorize(media.ownerId, token);
    const m = itemMetrics(id);
    const values = { views: m.views, likes: m.likes, replies: m.comments, reposts: m.shares, quotes: 0, shares: 0 };
    return { data: lifetimeInsights(id, values, (q.metric ?? '').split(',')) };
  }

  /** A container (status, error_message) or a published thread. */
  @Get('v1.0/:id')
  async node(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string): Promise<unknown> {
    const container = await this.containers.poll(NET, id);
    if (container) {
      await this.threads.authorize(container.ownerId, token);
      const status = this.containers.status(container);
      return { id, status, ...(status === 'ERROR' ? { error_message: container.error } : {}) };
    }
    const media = await this.containers.media(NET, id);
    if (!media) throw graphNotFound(id, 'THApiException', '');
    const user = await this.threads.authorize(media.ownerId, token);
    return this.view(media, user.username);
  }

  /** What a permalink opens: a tiny page showing the post. */
  @Get('www/:handle/post/:id')
  @Header('Content-Type', 'text/html; charset=utf-8')
  async permalink(@Param('id') id: string): Promise<string> {
    const media = await this.containers.media(NET, id);
    return permalinkPage('Threads', media && { ...media, time: media.timestamp });
  }

  private view(m: SandboxMedia, username: string): Record<string, unknown> {
    return {
      id: m.id,
      media_product_type: 'THREADS',
      media_type: m.mediaType,
      text: m.text,
      permalink: m.permalink,
      timestamp: m.timestamp,
      username,
      ...(m.mediaUrls[0] ? { media_url: m.mediaUrls[0] } : {}),
    };
  }
}
