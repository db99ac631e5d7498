import { addDays } from '../kit/days';
import type { Q } from '../kit/sandbox/sandbox-request';
import type { TokenInfo } from '../kit/sandbox/sandbox-oauth';
import { INSTAGRAM_RULES } from './instagram.adapter';
import { SandboxMediaFetch } from '../kit/sandbox/sandbox-media';
import { Body, Get, Header, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppConfig } from '@/config/config';
import {
  commentPage,
  facebookLoginToken,
  graphDate,
  graphFail,
  GraphToken,
  graphPaging,
  permalinkPage,
  SandboxToken,
} from '../kit/sandbox/graph-sandbox';
import { InstagramSandbox } from './instagram-sandbox.service';
import { parseMagicWords } from '../kit/sandbox/magic-words';
import { MetaContainers, SandboxMedia } from '../kit/sandbox/meta-containers';
import { SandboxController } from '../kit/sandbox/sandbox-http';
import { dailyAccountMetrics, dateRange, itemMetrics } from '../kit/sandbox/sandbox-metrics';
import { SandboxOAuth } from '../kit/sandbox/sandbox-oauth';
import { firstCapLimit } from '../kit/caps';
import { instagramNetwork } from './instagram.network';

const V = 'v23.0';
const NET = 'instagram';

/** Simulated Instagram API with Facebook Login (Graph v23.0) under /sandbox/instagram. */
@SandboxController('instagram')
export class InstagramSandboxController {
  constructor(
    private readonly media: SandboxMediaFetch,
    private readonly ig: InstagramSandbox,
    private readonly containers: MetaContainers,
    private readonly oauth: SandboxOAuth,
    private readonly config: AppConfig,
  ) {}

  @Get(`${V}/dialog/oauth`)
  authorize(@Query() q: Q, @Res() res: Response): Promise<void> {
    return this.oauth.authorizeQuery(q, { network: NET, appLabel: 'Instagram app' }, res);
  }

  @Get(`${V}/oauth/access_token`)
  token(@Query() q: Q): Promise<GraphToken> {
    return facebookLoginToken(this.oauth, NET, q, { short: 'EAAsbxJ', long: 'EAAsbxI' });
  }

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

  /** Creates a container: image_url, video_url (REELS/VIDEO), or CAROUSEL children. */
  @Post(`${V}/:igId/media`)
  async createContainer(
    @SandboxToken(NET) token: TokenInfo,
    @Param('igId') igId: string,
    @Body() body: Q,
  ): Promise<{ id: string }> {
    const account = await this.ig.authorize(igId, token);
    const caption = body.caption ?? '';
    if ([...caption].length > INSTAGRAM_RULES.maxText)
      throw graphFail('The caption is too long.', {
        code: 100,
        subcode: 2207010,
        userTitle: 'Caption too long',
        userMsg: 'Captions may have at most 2,200 characters.',
      });
    if ((caption.match(/(^|\s)#[^\s#]+/gu) ?? []).length > 30)
      throw graphFail('The caption has too many hashtags.', {
        code: 100,
        subcode: 2207010,
        userMsg: 'Captions may have at most 30 hashtags.',
      });
    const type = (body.media_type ?? 'IMAGE').toUpperCase();
    const isCarouselItem = body.is_carousel_item === 'true';
    const base = { ownerId: account.id, text: caption, isCarouselItem, extra: {} };
    if (type === 'CAROUSEL') {
      const children = (body.children ?? '').split(',').filter(Boolean);
      if (children.length < 2 || children.length > 10)
        throw graphFail('(#100) The carousel must contain between 2 and 10 children.', { code: 100, subcode: 2207028 });
      const urls: string[] = [];
      for (const id of children) {
        const child = await this.containers.get(NET, id);
        if (!child || child.ownerId !== account.id || !child.isCarouselItem)
          throw graphFail(`(#100) Invalid child container: ${id}`, { code: 100, subcode: 2207028 });
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
    if (type === 'REELS' || type === 'VIDEO') {
      if (!body.video_url) throw graphFail('(#100) The parameter video_url is required', { code: 100 });
      const problem = await this.media.problem(body.video_url, 'video');
      // Video problems surface while processing, as the container's ERROR status.
      return {
        id: (
          await this.containers.create(NET, {
            ...base,
            mediaType: 'VIDEO',
            mediaUrls: [body.video_url],
            children: [],
            error: problem ? `ERROR: ${problem} (2207026)` : null,
            readyAt: parseMagicWords(caption).review ? Date.now() + this.config.sandbox.reviewMs : null,
          })
        ).id,
      };
    }
    if (!body.image_url) throw graphFail('(#100) The parameter image_url is required', { code: 100 });
    const problem = await this.media.problem(body.image_url, 'image');
    if (problem)
      throw graphFail('The media could not be fetched from this URI.', {
        code: 9004,
        subcode: 2207052,
        userTitle: 'Media download has failed',
        userMsg: problem,
      });
    return {
      id: (
        await this.containers.create(NET, {
          ...base,
          mediaType: 'IMAGE',
          mediaUrls: [body.image_url],
          children: [],
          error: null,
        })
      ).id,
    };
  }

  @Post(`${V}/:igId/media_publish`)
  async publish(
    @SandboxToken(NET) token: TokenInfo,
    @Param('igId') igId: string,
    @Body() body: Q,
  ): Promise<{ id: string }> {
    const account = await this.ig.authorize(igId, token);
    const c = body.creation_id ? await this.containers.get(NET, body.creation_id) : null;
    if (!c || c.ownerId !== account.id) throw graphFail('(#100) Invalid parameter: creation_id', { code: 100 });
    const status = this.containers.status(c);
    if (status === 'IN_PROGRESS')
      throw graphFail('Media ID is not available. The media is not ready for publishing, please wait for a moment.', {
        code: 9007,
        subcode: 2207027,
      });
    if (status === 'ERROR')
      throw graphFail(`The media could not be published: ${c.error ?? 'processing failed'}`, {
        code: 9007,
        subcode: 2207026,
      });
    if (status === 'EXPIRED') throw graphFail('The media container has expired.', { code: 9007, subcode: 2207020 });
    if (status === 'PUBLISHED') throw graphFail('(#100) This media has already been published.', { code: 100 });
    if (
      (await this.containers.publishedLastDay(NET, account.id)) >=
      firstCapLimit(instagramNetwork, this.config.networkCaps)
    )
      throw graphFail('Application request limit reached', {
        code: 9,
        subcode: 2207042,
        userMsg: 'You reached the maximum number of posts allowed per day.',
      });
    await this.ig.magic(account.id, c.text, c.mediaUrls.join('|'));
    const media = await this.containers.publish(NET, c, `${this.config.publicBaseUrl}/sandbox/instagram/www/p`);
    return { id: media.id };
  }

  @Get(`${V}/:igId/content_publishing_limit`)
  async limit(@SandboxToken(NET) token: TokenInfo, @Param('igId') igId: string): Promise<unknown> {
    const account = await this.ig.authorize(igId, token);
    return this.containers.publishingLimit(NET, account.id, firstCapLimit(instagramNetwork, this.config.networkCaps));
  }

  @Get(`${V}/:igId/media`)
  async listMedia(@SandboxToken(NET) token: TokenInfo, @Param('igId') igId: string, @Query() q: Q): Promise<unknown> {
    const account = await this.ig.authorize(igId, token);
    const media = await this.containers.recent(NET, account.id, Math.min(Number(q.limit) || 25, 100));
    return { data: media.map((m) => this.view(m)), paging: { cursors: { before: 'QVFI', after: 'QVFI' } } };
  }

  @Get(`${V}/:id/insights`)
  async insights(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string, @Query() q: Q): Promise<unknown> {
    const names = (q.metric ?? '').split(',').filter(Boolean);
    const media = await this.containers.media(NET, id);
    if (media) {
      await this.ig.authorize(media.ownerId, token);
      const m = itemMetrics(id);
      const values: Record<string, number> = {
        views: m.views,
        reach: m.reach,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        saved: m.saves,
        total_interactions: m.engagement,
      };
      return {
        data: names
          .filter((n) => n in values)
          .map((n) => ({
            name: n,
            period: 'lifetime',
            values: [{ value: values[n] }],
            title: n,
            id: `${id}/insights/${n}/lifetime`,
          })),
      };
    }
    const account = await this.ig.authorize(id, token);
    const until = graphDate(q.until, new Date(Date.now() + 86_400_000));
    const days = dateRange(graphDate(q.since, new Date(Date.parse(until) - 86_400_000)), addDays(until, -1)).map((d) =>
      dailyAccountMetrics(account.id, d),
    );
    const sum = (pick: (d: (typeof days)[number]) => number): number => days.reduce((s, d) => s + pick(d), 0);
    const values: Record<string, number> = {
      views: sum((d) => d.views),
      reach: sum((d) => d.reach),
      total_interactions: sum((d) => d.engagement),
      shares: sum((d) => d.shares),
    };
    const unknown = names.find((n) => !(n in values));
    if (unknown)
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
  async comments(
    @SandboxToken(NET) token: TokenInfo,
    @Param('id') id: string,
    @Query() q: Q,
    @Req() req: Request,
  ): Promise<unknown> {
    const media = await this.containers.media(NET, id);
    if (!media)
      throw graphFail(`Unsupported get request. Object with ID '${id}' does not exist.`, {
        code: 100,
        subcode: 33,
        type: 'GraphMethodException',
      });
    await this.ig.authorize(media.ownerId, token);
    const page = commentPage(id, new Date(media.timestamp).toISOString(), q.after, q.limit);
    return {
      data: page.items.map((c) => ({
        id: c.id,
        text: c.text,
        username: c.authorName.toLowerCase().replace(/[^a-z]+/g, '.'),
        timestamp: c.createdAt.replace(/\.\d{3}Z$/, '+0000'),
      })),
      paging: graphPaging(req, this.config.publicBaseUrl, { ...page, count: page.items.length }),
    };
  }

  /** A container (status_code), a media object (permalink…) or the IG user (followers_count…). */
  @Get(`${V}/:id`)
  async node(@SandboxToken(NET) token: TokenInfo, @Param('id') id: string): Promise<unknown> {
    const container = await this.containers.poll(NET, id);
    if (container) {
      await this.ig.authorize(container.ownerId, token);
      const status = this.containers.status(container);
      return {
        id,
        status_code: status,
        status:
          status === 'ERROR'
            ? container.error
            : status === 'IN_PROGRESS'
              ? 'In Progress'
              : status === 'FINISHED'
                ? 'Finished: Media has been uploaded and it is ready to be published.'
                : status,
      };
    }
    const media = await this.containers.media(NET, id);
    if (media) {
      await this.ig.authorize(media.ownerId, token);
      return this.view(media);
    }
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
    if (!media) throw graphFail("This content isn't available right now.", { code: 100, status: 404 });
    return permalinkPage('Instagram', media.text, media.mediaUrls, media.timestamp);
  }

  private view(m: SandboxMedia): Record<string, unknown> {
    return {
      id: m.id,
      caption: m.text,
      media_type: m.mediaType,
      media_url: m.mediaUrls[0],
      permalink: m.permalink,
      timestamp: m.timestamp,
      like_count: itemMetrics(m.id).likes,
      comments_count: itemMetrics(m.id).comments,
    };
  }
}
