import { Body, Get, Header, Injectable, Param, Post, Query, Type } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { codePoints, type ContentRules, countHashtags } from '../content-rules';
import { graphAuth, graphTime, numericId, permalinkPage } from './graph-sandbox';
import { SandboxAuth, type SandboxAuthSpec } from './sandbox-auth';
import { addOwnComment, commentRefusal } from './sandbox-comments';
import { enforceMagicWords, type MagicErrors, parseMagicWords } from './magic-words';
import { SandboxController, type SandboxHttpError } from './sandbox-http';
import { SandboxCaps } from './sandbox-caps';
import { SandboxMediaFetch } from './sandbox-media';
import type { TokenInfo } from './sandbox-oauth';
import type { Q } from './sandbox-request';
import { SandboxStore } from './sandbox-store';

/**
 * Media containers as Instagram and Threads keep them, and the container routes both serve
 * (create, publish, status) with each network's names, limits and error wording in its dialect: created IN_PROGRESS, FINISHED after a
 * couple of status polls (or 3 s), ERROR when the media could not be downloaded, PUBLISHED once
 * published, EXPIRED after 24 h. A video container of a #sandbox-review post stays IN_PROGRESS
 * until its `readyAt` (SANDBOX_REVIEW_MS after creation). Published media are listed per account, newest first.
 */
export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'PUBLISHED' | 'EXPIRED';

export interface SandboxContainer {
  id: string;
  ownerId: string;
  mediaType: string;
  mediaUrls: string[];
  text: string;
  children: string[];
  isCarouselItem: boolean;
  createdAt: string;
  polls: number;
  /** Why processing failed (shown once the container reports ERROR). */
  error: string | null;
  mediaId: string | null;
  extra: Record<string, string>;
  /** #sandbox-review: processing lasts until this time (ms since epoch). */
  readyAt?: number | null;
}

export interface SandboxMedia {
  id: string;
  ownerId: string;
  mediaType: string;
  text: string;
  mediaUrls: string[];
  timestamp: string;
  permalink: string;
  extra: Record<string, string>;
}

type ContainerKind = 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';

/** Who posts through containers: an Instagram account, a Threads profile. */
export interface ContainerOwner {
  id: string;
  username: string;
}

/** What differs between Instagram's and Threads' container APIs. */
export interface ContainerDialect {
  network: 'instagram' | 'threads';
  /** The routes: `${version}/:owner/${collection}` (POST creates, GET lists), `…/${publish}` and `…/${limit}`. */
  routes: { version: string; collection: string; publish: string; limit: string };
  /** Where an owner's published posts live (their permalinks add the post id). */
  permalinkBase: (publicBaseUrl: string, owner: ContainerOwner) => string;
  /** The route a permalink opens (with :id) and the network's name on that page. */
  permalink: { route: string; label: string };
  /** A published post as the network renders it. */
  view: (m: SandboxMedia, owner: ContainerOwner) => Record<string, unknown>;
  /** The owner `id` when the token may act for it (Graph's errors otherwise). */
  ownerOf: (store: SandboxStore, id: string, token: TokenInfo) => Promise<ContainerOwner>;
  /** A container's status as GET /{container-id} answers it. */
  statusView: (c: SandboxContainer, status: ContainerStatus) => Record<string, unknown>;
  /** maxText, carousel bounds (images.carouselMin..images.max), hashtags. */
  rules: ContentRules;
  /** The form field of the text (caption, text). */
  textField: string;
  /** A media_type (upper case) → what it creates; any other creates `otherType` or is refused with it. */
  types: Record<string, ContainerKind>;
  otherType: ContainerKind | (() => SandboxHttpError);
  /** #sandbox-review holds a video container IN_PROGRESS (Instagram). */
  review: boolean;
  /** The processing error a video container reports when its download failed. */
  videoError: (problem: string) => string;
  magic: MagicErrors;
  /** Replies (Threads): a container with reply_to_id publishes as a comment on the owner's own post. */
  replies?: { invalidTarget: () => SandboxHttpError; refused: (message: string) => SandboxHttpError };
  errors: {
    /** Instagram refuses a missing image_url/video_url up front; else the download fails. */
    missingUrl?: (field: string) => SandboxHttpError;
    textTooLong: () => SandboxHttpError;
    tooManyHashtags?: () => SandboxHttpError;
    /** A TEXT container without text. */
    textRequired?: () => SandboxHttpError;
    carouselSize: () => SandboxHttpError;
    invalidChild: (id: string) => SandboxHttpError;
    imageDownload: (problem: string) => SandboxHttpError;
    invalidCreationId: () => SandboxHttpError;
    notReady: () => SandboxHttpError;
    notPublishable: (c: SandboxContainer, status: 'ERROR' | 'EXPIRED') => SandboxHttpError;
    published: () => SandboxHttpError;
    quota: () => SandboxHttpError;
  };
}

const READY_AFTER_POLLS = 2;
const READY_AFTER_MS = 3000;
const EXPIRES_MS = 24 * 3600 * 1000;

@Injectable()
export class MetaContainers {
  constructor(
    private readonly store: SandboxStore,
    private readonly downloads: SandboxMediaFetch,
    private readonly config: AppConfig,
  ) {}

  /** A new container's id (the create route). */
  async createFrom(d: ContainerDialect, ownerId: string, body: Q): Promise<{ id: string }> {
    const text = body[d.textField] ?? '';
    if (codePoints(text) > d.rules.maxText) throw d.errors.textTooLong();
    if (d.errors.tooManyHashtags && countHashtags(text) > (d.rules.maxHashtags ?? Infinity))
      throw d.errors.tooManyHashtags();
    const base = {
      ownerId,
      text,
      isCarouselItem: body.is_carousel_item === 'true',
      extra: (body.link_attachment ? { link: body.link_attachment } : {}) as Record<string, string>,
      mediaUrls: [] as string[],
      children: [] as string[],
      error: null,
    };
    const type = (body.media_type ?? '').toUpperCase();
    const kind = Object.hasOwn(d.types, type) ? d.types[type] : d.otherType;
    if (typeof kind === 'function') throw kind();
    const url = kind === 'IMAGE' ? body.image_url : body.video_url;
    if ((kind === 'IMAGE' || kind === 'VIDEO') && !url && d.errors.missingUrl)
      throw d.errors.missingUrl(kind === 'IMAGE' ? 'image_url' : 'video_url');
    switch (kind) {
      case 'TEXT':
        if (!text && d.errors.textRequired) throw d.errors.textRequired();
        return this.create(d.network, { ...base, mediaType: 'TEXT_POST' });
      case 'IMAGE': {
        const problem = await this.downloads.problem(url, 'image');
        if (problem) throw d.errors.imageDownload(problem);
        return this.create(d.network, { ...base, mediaType: 'IMAGE', mediaUrls: [url ?? ''] });
      }
      case 'VIDEO': {
        // Video problems surface while processing, as the container's ERROR status.
        const problem = await this.downloads.problem(url, 'video');
        return this.create(d.network, {
          ...base,
          mediaType: 'VIDEO',
          mediaUrls: [url ?? ''],
          error: problem ? d.videoError(problem) : null,
          readyAt: d.review && parseMagicWords(text).review ? Date.now() + this.config.sandbox.reviewMs : null,
        });
      }
      case 'CAROUSEL': {
        const children = (body.children ?? '').split(',').filter(Boolean);
        if (children.length < (d.rules.images.carouselMin ?? 2) || children.length > d.rules.images.max)
          throw d.errors.carouselSize();
        const urls: string[] = [];
        for (const id of children) {
          const child = await this.get(d.network, id);
          if (!child || child.ownerId !== ownerId || !child.isCarouselItem) throw d.errors.invalidChild(id);
          urls.push(...child.mediaUrls);
        }
        return this.create(d.network, { ...base, mediaType: 'CAROUSEL_ALBUM', mediaUrls: urls, children });
      }
    }
  }

  /** A FINISHED container becomes a post (the publish route), unless the owner reached `dailyQuota` in 24 h. */
  async publishFrom(
    d: ContainerDialect,
    ownerId: string,
    creationId: string | undefined,
    permalinkBase: string,
    dailyQuota: number,
    /** A reply (Threads' first comment): no post quota and no post magic words. */
    opts: { reply?: boolean } = {},
  ): Promise<{ id: string }> {
    const c = creationId ? await this.get(d.network, creationId) : null;
    if (!c || c.ownerId !== ownerId) throw d.errors.invalidCreationId();
    const status = this.status(c);
    if (status === 'IN_PROGRESS') throw d.errors.notReady();
    if (status === 'ERROR' || status === 'EXPIRED') throw d.errors.notPublishable(c, status);
    if (status === 'PUBLISHED') throw d.errors.published();
    if (!opts.reply) {
      if ((await this.publishedLastDay(d.network, ownerId)) >= dailyQuota) throw d.errors.quota();
      const attempt = { platform: d.network, accountId: ownerId, text: c.text, contentKey: c.mediaUrls.join('|') };
      await enforceMagicWords(this.store, attempt, d.magic);
    }
    return { id: (await this.publish(d.network, c, permalinkBase, opts.reply)).id };
  }

  private async create(
    network: string,
    c: Omit<SandboxContainer, 'id' | 'createdAt' | 'polls' | 'mediaId'>,
  ): Promise<{ id: string }> {
    const container: SandboxContainer = {
      ...c,
      id: numericId(),
      createdAt: new Date().toISOString(),
      polls: 0,
      mediaId: null,
    };
    await this.store.put([network, 'container', container.id], container);
    return { id: container.id };
  }

  async get(network: string, id: string): Promise<SandboxContainer | null> {
    return this.store.get<SandboxContainer>([network, 'container', id]);
  }

  status(c: SandboxContainer): ContainerStatus {
    if (c.mediaId) return 'PUBLISHED';
    if (Date.now() - Date.parse(c.createdAt) > EXPIRES_MS) return 'EXPIRED';
    if (c.polls < READY_AFTER_POLLS && Date.now() - Date.parse(c.createdAt) < READY_AFTER_MS) return 'IN_PROGRESS';
    if (c.readyAt && Date.now() < c.readyAt) return 'IN_PROGRESS';
    return c.error ? 'ERROR' : 'FINISHED';
  }

  /** A status read by the client: counts as one poll. */
  async poll(network: string, id: string): Promise<SandboxContainer | null> {
    return this.store.update<SandboxContainer>([network, 'container', id], (c) => ({ ...c, polls: c.polls + 1 }));
  }

  /** A reply is a media object of its own, but not one of the owner's posts and not on the post quota. */
  async publish(network: string, c: SandboxContainer, permalinkBase: string, reply = false): Promise<SandboxMedia> {
    const id = numericId();
    const media: SandboxMedia = {
      id,
      ownerId: c.ownerId,
      mediaType: c.mediaType,
      text: c.text,
      mediaUrls: c.mediaUrls,
      timestamp: graphTime(new Date()),
      permalink: `${permalinkBase}/${id}`,
      extra: c.extra,
    };
    await this.store.put([network, 'media', id], media);
    await this.store.update<SandboxContainer>([network, 'container', c.id], (x) => ({ ...x, mediaId: id }));
    if (reply) return media;
    await this.store.push([network, 'owner', c.ownerId, 'media'], id);
    await this.store.incr([network, 'owner', c.ownerId, 'published', new Date().toISOString().slice(0, 13)], 26 * 3600);
    return media;
  }

  /** GET /{id} of a container (its status: one poll) or of a published post; null when `id` is neither. */
  async node(d: ContainerDialect, id: string, token: TokenInfo): Promise<Record<string, unknown> | null> {
    const container = await this.poll(d.network, id);
    if (container) {
      await d.ownerOf(this.store, container.ownerId, token);
      return d.statusView(container, this.status(container));
    }
    const media = await this.media(d.network, id);
    return media && d.view(media, await d.ownerOf(this.store, media.ownerId, token));
  }

  async media(network: string, id: string): Promise<SandboxMedia | null> {
    return publishedMedia(this.store, network, id);
  }

  /** The owner's media, newest first. */
  async recent(network: string, ownerId: string, limit: number): Promise<SandboxMedia[]> {
    const ids = await this.store.list<string>([network, 'owner', ownerId, 'media'], 0, Math.max(0, limit - 1));
    const media = await Promise.all(ids.map((id) => this.media(network, id)));
    return media.filter((m) => m !== null);
  }

  /** Posts published in the last 24 h (hour buckets). */
  async publishedLastDay(network: string, ownerId: string): Promise<number> {
    let n = 0;
    for (let h = 0; h < 24; h++) {
      const hour = new Date(Date.now() - h * 3600_000).toISOString().slice(0, 13);
      n += (await this.store.get<number>([network, 'owner', ownerId, 'published', hour])) ?? 0;
    }
    return n;
  }
}

/** A published post of a container network. */
export function publishedMedia(store: SandboxStore, network: string, id: string): Promise<SandboxMedia | null> {
  return store.get<SandboxMedia>([network, 'media', id]);
}

/** `@SandboxAuth(containerOwner(d)) owner`: the route's :owner, when the call's token may act for it. */
export function containerOwner(d: ContainerDialect): SandboxAuthSpec<ContainerOwner> {
  return {
    ...graphAuth(d.network),
    caller: (info, { req, store }) => d.ownerOf(store, req.params.owner as string, info),
  };
}

/**
 * The container routes of a network, on its dialect: POST …/:owner/<collection> creates a
 * container, POST …/:owner/<publish> publishes one, GET …/:owner/<collection> lists posts,
 * GET …/:owner/<limit> tells the publishing quota, and the permalink page of a post.
 */
export function ContainerRoutes(d: ContainerDialect): Type {
  const { version, collection, publish, limit } = d.routes;
  const Owner = (): ParameterDecorator => SandboxAuth(containerOwner(d));

  @SandboxController(d.network)
  class Routes {
    constructor(
      private readonly containers: MetaContainers,
      private readonly config: AppConfig,
      private readonly store: SandboxStore,
      private readonly caps: SandboxCaps,
    ) {}

    @Post(`${version}/:owner/${collection}`)
    async create(@Owner() owner: ContainerOwner, @Body() body: Q): Promise<{ id: string }> {
      if (!d.replies || !body.reply_to_id) return this.containers.createFrom(d, owner.id, body);
      // A reply: the sandbox user may reply to their own posts (the owner's permission).
      const root = await this.containers.media(d.network, body.reply_to_id);
      if (!root || root.ownerId !== owner.id) throw d.replies.invalidTarget();
      const created = await this.containers.createFrom(d, owner.id, body);
      await this.store.put([d.network, 'reply-to', created.id], root.id);
      return created;
    }

    @Post(`${version}/:owner/${publish}`)
    async publish(@Owner() owner: ContainerOwner, @Body() body: Q): Promise<{ id: string }> {
      const permalinkBase = d.permalinkBase(this.config.publicBaseUrl, owner);
      const replyTo =
        d.replies && body.creation_id ? await this.store.get<string>([d.network, 'reply-to', body.creation_id]) : null;
      const cap = this.caps.limit(d.network);
      if (!d.replies || !replyTo) return this.containers.publishFrom(d, owner.id, body.creation_id, permalinkBase, cap);
      // A reply (a first comment): its own magic word; no post quota, no post magic words.
      const c = await this.containers.get(d.network, body.creation_id ?? '');
      const refused = commentRefusal(d.network, c?.text ?? '');
      if (refused) throw d.replies.refused(refused);
      const reply = await this.containers.publishFrom(d, owner.id, body.creation_id, permalinkBase, cap, {
        reply: true,
      });
      const author = { id: owner.id, name: owner.username };
      await addOwnComment(this.store, d.network, replyTo, author, c?.text ?? '', reply.id);
      return reply;
    }

    /** content_publishing_limit / threads_publishing_limit: the owner's posts of the last 24 h against the cap. */
    @Get(`${version}/:owner/${limit}`)
    async limit(@Owner() owner: ContainerOwner): Promise<unknown> {
      const config = { quota_total: this.caps.limit(d.network), quota_duration: 86400 };
      return { data: [{ quota_usage: await this.containers.publishedLastDay(d.network, owner.id), config }] };
    }

    /** What a permalink opens: a tiny page showing the post. */
    @Get(d.permalink.route)
    @Header('Content-Type', 'text/html; charset=utf-8')
    async permalink(@Param('id') id: string): Promise<string> {
      const media = await this.containers.media(d.network, id);
      return permalinkPage(d.permalink.label, media && { ...media, time: media.timestamp });
    }

    @Get(`${version}/:owner/${collection}`)
    async list(@Owner() owner: ContainerOwner, @Query() q: Q): Promise<unknown> {
      const media = await this.containers.recent(d.network, owner.id, Math.min(Number(q.limit) || 25, 100));
      return { data: media.map((m) => d.view(m, owner)), paging: { cursors: { before: 'QVFI', after: 'QVFI' } } };
    }
  }
  return Routes;
}
