import { addDays } from '../kit/days';
import type { Q } from '../kit/sandbox/sandbox-request';
import type { TokenInfo } from '../kit/sandbox/sandbox-oauth';
import { THREADS_RULES } from './threads.adapter';
import { SandboxMediaFetch } from '../kit/sandbox/sandbox-media';
import { Body, Get, Header, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { AppConfig } from '@/config/config';
import {
  graphDate,
  graphFail,
  GraphToken,
  longLivedToken,
  oauthFail,
  permalinkPage,
  SandboxToken,
} from '../kit/sandbox/graph-sandbox';
import { MetaContainers, SandboxMedia } from '../kit/sandbox/meta-containers';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { SandboxOAuth } from '../kit/sandbox/sandbox-oauth';
import { ThreadsSandbox, threadsUserInsights } from './threads-sandbox.service';
import { firstCapLimit } from '../kit/caps';
import { threadsNetwork } from './threads.network';

const NET = 'threads';

/** Simulated Threads API (graph.threads.net, v1.0) under /sandbox/threads. */
@SandboxController('threads')
export class ThreadsSandboxController {
  constructor(
    private readonly media: SandboxMediaFetch,
    private readonly threads: ThreadsSandbox,
    private readonly containers: MetaContainers,
    private readonly oauth: SandboxOAuth,
    private readonly config: AppConfig,
  ) {}

  @Get('oauth/authorize')
  authorize(@Query() q: Q, @Res() res: Response): Promise<void> {
    return this.oauth.authorizeQuery(q, { network: NET, appLabel: 'Threads app', pkce: false }, res);
  }

  /** code → short-lived token (1 h) and the user id. */
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

  @Post('v1.0/:userId/threads')
  async createContainer(
    @SandboxToken(NET) token: TokenInfo,
    @Param('userId') userId: string,
    @Body() body: Q,
  ): Promise<{ id: string }> {
    const user = await this.threads.authorize(userId, token);
    const text = body.text ?? '';
    if ([...text].length > THREADS_RULES.maxText)
      throw graphFail(`Param text must be at most ${THREADS_RULES.maxText} characters long.`, {
        code: 100,
        type: 'THApiException',
      });
    const type = (body.media_type ?? '').toUpperCase();
    const base = {
      ownerId: user.id,
      text,
      isCarouselItem: body.is_carousel_item === 'true',
      extra: (body.link_attachment ? { link: body.link_attachment } : {}) as Record<string, string>,
    };
    switch (type) {
      case 'TEXT':
        if (!text) throw graphFail('Param text is required for TEXT posts.', { code: 100, type: 'THApiException' });
        return {
          id: (
            await this.containers.create(NET, {
              ...base,
              mediaType: 'TEXT_POST',
              mediaUrls: [],
              children: [],
              error: null,
            })
          ).id,
        };
      case 'IMAGE': {
        const problem = await this.media.problem(body.image_url, 'image');
        if (problem)
          throw graphFail('Media download has failed.', {
            code: 100,
            subcode: 2207052,
            type: 'THApiException',
            userMsg: problem,
          });
        return {
          id: (
            await this.containers.create(NET, {
              ...base,
              mediaType: 'IMAGE',
              mediaUrls: [body.image_url ?? ''],
              children: [],
              error: null,
            })
          ).id,
        };
      }
      case 'VIDEO': {
        const problem = await this.media.problem(body.video_url, 'video');
        return {
          id: (
            await this.containers.create(NET, {
              ...base,
              mediaType: 'VIDEO',
              mediaUrls: [body.video_url ?? ''],
              children: [],
              error: problem ? 'FAILED_DOWNLOADING_VIDEO' : null,
            })
          ).id,
        };
      }
      case 'CAROUSEL': {
        const children = (body.children ?? '').split(',').filter(Boolean);
        if (children.length < 2 || children.length > 20)
          throw graphFail('A carousel must have between 2 and 20 children.', { code: 100, type: 'THApiException' });
        const urls: string[] = [];
        for (const id of children) {
          const child = await this.containers.get(NET, id);
          if (!child || child.ownerId !== user.id || !child.isCarouselItem)
            throw graphFail(`Invalid child container: ${id}`, { code: 100, type: 'THApiException' });
          urls.push(...child.mediaUrls);
        }
        return {
          id: (
            await this.containers.create(NET, {
              ...base,
              mediaType: 'CAROUSEL_ALBUM',
              mediaUrls: urls,
              children,
              error: null,
            })
          ).id,
        };
      }
      default:
        throw graphFail('Param media_type must be one of TEXT, IMAGE, VIDEO, CAROUSEL.', {
          code: 100,
          type: 'THApiException',
        });
    }
  }

  @Post('v1.0/:userId/threads_publish')
  async publish(
    @SandboxToken(NET) token: TokenInfo,
    @Param('userId') userId: string,
    @Body() body: Q,
  ): Promise<{ id: string }> {
    const user = await this.threads.authorize(userId, token);
    const c = body.creation_id ? await this.containers.get(NET, body.creation_id) : null;
    if (!c || c.ownerId !== user.id)
      throw graphFail('Invalid parameter: creation_id', { code: 100, type: 'THApiException' });
    const status = this.containers.status(c);
    if (status === 'IN_PROGRESS')
      throw graphFail('The media is not ready for publishing, please wait for a moment.', {
        code: 9007,
        subcode: 2207027,
        type: 'THApiException',
      });
    if (status === 'ERROR' || status === 'EXPIRED')
      throw graphFail(`The media cannot be published: ${c.error ?? status}.`, {
        code: 9007,
        subcode: 2207026,
        type: 'THApiException',
      });
    if (status === 'PUBLISHED')
      throw graphFail('This media has already been published.', { code: 100, type: 'THApiException' });
    if (
      (await this.containers.publishedLastDay(NET, user.id)) >= firstCapLimit(threadsNetwork, this.config.networkCaps)
    )
      throw graphFail('You reached the maximum number of posts allowed per day.', {
        code: 4,
        subcode: 2207042,
        type: 'THApiException',
      });
    await this.threads.magic(user.id, c.text, c.mediaUrls.join('|'));
    return {
      id: (
        await this.containers.publish(NET, c, `${this.config.publicBaseUrl}/sandbox/threads/www/@${user.username}/post`)
      ).id,
    };
  }

  @Get('v1.0/:userId/threads')
  async list(@SandboxToken(NET) token: TokenInfo, @Param('userId') userId: string, @Query() q: Q): Promise<unknown> {
    const user = await this.threads.authorize(userId, token);
    const media = await this.containers.recent(NET, user.id, Math.min(Number(q.limit) || 25, 100));
    return {
      data: media.map((m) => this.view(m, user.username)),
      paging: { cursors: { before: 'QVFI', after: 'QVFI' } },
    };
  }

  @Get('v1.0/:userId/threads_publishing_limit')
  async limit(@SandboxToken(NET) token: TokenInfo, @Param('userId') userId: string): Promise<unknown> {
    const user = await this.threads.authorize(userId, token);
    return this.containers.publishingLimit(NET, user.id, firstCapLimit(threadsNetwork, this.config.networkCaps));
  }

  @Get('v1.0/:userId/threads_insights')
  async userInsights(
    @SandboxToken(NET) token: TokenInfo,
    @Param('userId') userId: string,
    @Query() q: Q,
  ): Promise<unknown> {
    const user = await this.threads.authorize(userId, token);
    const names = (q.metric ?? '').split(',').filter(Boolean);
    const allowed = ['views', 'likes', 'replies', 'reposts', 'quotes', 'followers_count'];
    if (!names.length || names.some((n) => !allowed.includes(n)))
      throw graphFail(`Param metric must be a list of: ${allowed.join(', ')}`, { code: 100, type: 'THApiException' });
    const until = graphDate(q.until, new Date(Date.now() + 86_400_000));
    const to = addDays(until, -1);
    return {
      data: threadsUserInsights(user.id, graphDate(q.since, new Date(Date.parse(`${to}T00:00:00Z`))), to, names),
    };
  }

  @Get('v1.0/:id/insights')
  async mediaInsights(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string, @Query() q: Q): Promise<unknown> {
    const media = await this.containers.media(NET, id);
    if (!media)
      throw graphFail(`Object with ID '${id}' does not exist.`, { code: 100, subcode: 33, type: 'THApiException' });
    await this.threads.authorize(media.ownerId, token);
    const m = itemMetrics(id);
    const values: Record<string, number> = {
      views: m.views,
      likes: m.likes,
      replies: m.comments,
      reposts: m.shares,
      quotes: 0,
      shares: 0,
    };
    return {
      data: (q.metric ?? '')
        .split(',')
        .filter((n) => n in values)
        .map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: values[name] }],
          title: name,
          id: `${id}/insights/${name}/lifetime`,
        })),
    };
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
    if (!media)
      throw graphFail(`Object with ID '${id}' does not exist.`, { code: 100, subcode: 33, type: 'THApiException' });
    const user = await this.threads.authorize(media.ownerId, token);
    return this.view(media, user.username);
  }

  /** What a permalink opens: a tiny page showing the post. */
  @Get('www/:handle/post/:id')
  @Header('Content-Type', 'text/html; charset=utf-8')
  async permalink(@Param('id') id: string): Promise<string> {
    const media = await this.containers.media(NET, id);
    if (!media) throw graphFail("This content isn't available right now.", { code: 100, status: 404 });
    return permalinkPage('Threads', media.text, media.mediaUrls, media.timestamp);
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
