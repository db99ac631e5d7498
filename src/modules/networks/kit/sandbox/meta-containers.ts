import { codePoints, type ContentRules, countHashtags } from '../content-rules';
import {
  type GraphErrorRow,
  graphAuth,
  graphMagicErrors,
  graphRowFail,
  graphTime,
  lifetimeInsights,
  numericId,
  permalinkPage,
} from './graph-sandbox';
import type { SandboxAuthSpec } from './sandbox-auth';
import { addOwnComment, commentRefusal } from './sandbox-comments';
import { enforceMagicWords, parseMagicWords } from './magic-words';
import type { SandboxHttpError } from './sandbox-http';
import { itemMetrics, type SandboxItemMetrics } from './sandbox-metrics';
import type { SandboxGrant, TokenInfo } from './sandbox-oauth';
import { pageSize, type Q } from './sandbox-request';
import { HTML, routesOf, type SandboxRoute } from './sandbox-routes';
import type { SandboxStore } from './sandbox-store';
import type { SandboxKit } from './sandbox-state';

/**
 * Instagram's and Threads' media containers and the routes both serve, in each network's dialect.
 * A container is IN_PROGRESS, FINISHED after a couple of polls (or 3 s), ERROR when its media could
 * not be downloaded, PUBLISHED, or EXPIRED after 24 h; a #sandbox-review video stays IN_PROGRESS
 * until its `readyAt` (SANDBOX_REVIEW_MS). Published media are listed per account, newest first.
 */
type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'PUBLISHED' | 'EXPIRED';

interface SandboxContainer {
  id: string;
  ownerId: string;
  mediaType: string;
  mediaUrls: string[];
  text: string;
  isCarouselItem: boolean;
  createdAt: string;
  polls: number;
  /** Why processing failed (shown once the container reports ERROR). */
  error: string | null;
  mediaId: string | null;
  /** #sandbox-review: processing lasts until this time (ms since epoch). */
  readyAt?: number | null;
  /** A reply (Threads): the post it comments on once published. */
  replyTo?: string;
}

type SandboxMedia = Pick<SandboxContainer, 'id' | 'ownerId' | 'mediaType' | 'text' | 'mediaUrls'> & {
  timestamp: string;
  permalink: string;
};

type ContainerKind = 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';

/** Who posts through containers: an Instagram account, a Threads profile. */
interface ContainerOwner {
  id: string;
  username: string;
  name: string;
}

/** The owner as GET /{id} (given its post count) and GET /{id}/insights answer it (Instagram's account). */
interface OwnerRoutes {
  node: (owner: ContainerOwner, mediaCount: number) => unknown;
  insights: (owner: ContainerOwner, q: Q) => unknown;
}

/** What differs between Instagram's and Threads' container APIs. */
export interface ContainerDialect {
  network: 'instagram' | 'threads';
  /** `${version}/:owner/${collection}` (POST creates, GET lists), `…/${publish}` and `…/${limit}`. */
  routes: { version: string; collection: string; publish: string; limit: string };
  /** GET `${version}/${profile.route}`: the token's own profile (its grant's, made on first sight). */
  profile: {
    route: string;
    answer: (sim: SandboxKit, grant: SandboxGrant) => Promise<unknown>;
  };
  /** The post page's route (with :id), the network's name on it, and the path of an owner's posts (`<path>/<id>`). */
  permalink: { route: string; label: string; path: (owner: ContainerOwner) => string };
  view: (m: SandboxMedia, owner: ContainerOwner) => Record<string, unknown>;
  /** The owner `id` when the token may act for it (Graph's errors otherwise). */
  ownerOf: (store: SandboxStore, id: string, token: TokenInfo) => Promise<ContainerOwner>;
  statusView: (c: SandboxContainer, status: ContainerStatus) => Record<string, unknown>;
  /** A post's lifetime insights, named as the network names them. */
  insights: (m: SandboxItemMetrics) => Record<string, number>;
  /** GET /{id} and /{id}/insights of an id that is neither a container nor a post: the owner itself, or an error. */
  owner: OwnerRoutes | ((id: string) => SandboxHttpError);
  /** maxText, carousel bounds (images.carouselMin..images.max), hashtags. */
  rules: ContentRules;
  /** The form field of the text (caption, text). */
  textField: string;
  /** A media_type (upper case) → what it creates; any other creates `otherType`, or is refused (errors.mediaType). */
  types: Record<string, ContainerKind>;
  otherType?: ContainerKind;
  /** #sandbox-review holds a video container IN_PROGRESS (Instagram). */
  review?: boolean;
  /** The processing error a video container reports when its download failed. */
  videoError: (problem: string) => string;
  /** The exception type of its errors and magic-word errors (default OAuthException). */
  errorType?: string;
  /** Its error rows; `{field}`, `{problem}`, `{id}`, `{reason}` and `{m}` are filled in. */
  errors: Record<ContainerError, GraphErrorRow> & Partial<Record<OptionalContainerError, GraphErrorRow>>;
}

type CreateError = 'textTooLong' | 'carouselSize' | 'invalidChild' | 'imageDownload' | 'invalidCreationId';
type ContainerError = CreateError | 'notReady' | 'notPublishable' | 'published' | 'quota';
/**
 * Refusals some networks make: a missing image_url/video_url up front (Instagram; else the download
 * fails), hashtags, a TEXT container without text, an expired container (else notPublishable), any
 * other media_type, a reply's target (a network that has it takes replies: Threads) and its text.
 */
type OptionalContainerError =
  'missingUrl' | 'tooManyHashtags' | 'textRequired' | 'expired' | 'mediaType' | 'replyTarget' | 'replyRefused';

const URL_FIELD: Partial<Record<ContainerKind, string>> = { IMAGE: 'image_url', VIDEO: 'video_url' };
const READY_AFTER_POLLS = 2;
const READY_AFTER_MS = 3000;
const EXPIRES_MS = 24 * 3600 * 1000;

function statusOf(c: SandboxContainer): ContainerStatus {
  if (c.mediaId) return 'PUBLISHED';
  if (Date.now() - Date.parse(c.createdAt) > EXPIRES_MS) return 'EXPIRED';
  if (c.polls < READY_AFTER_POLLS && Date.now() - Date.parse(c.createdAt) < READY_AFTER_MS) return 'IN_PROGRESS';
  if (c.readyAt && Date.now() < c.readyAt) return 'IN_PROGRESS';
  return c.error ? 'ERROR' : 'FINISHED';
}

export function publishedMedia(store: SandboxStore, network: string, id: string): Promise<SandboxMedia | null> {
  return store.get<SandboxMedia>([network, 'media', id]);
}

/** The route's :owner, when the call's token may act for it. */
export function containerOwner(d: ContainerDialect): SandboxAuthSpec<ContainerOwner> {
  return {
    ...graphAuth(d.network),
    caller: (info, { req, store }) => d.ownerOf(store, req.params.owner as string, info),
  };
}

/** The routes Instagram and Threads share, in a network's dialect; their state is all in the kit's store. */
export function containerRoutes(d: ContainerDialect): SandboxRoute<SandboxKit>[] {
  const { version, collection, publish, limit } = d.routes;
  const route = routesOf<SandboxKit>();
  const [owner, token] = [containerOwner(d), graphAuth(d.network)];
  /** The dialect's error `e` (an optional one only where the dialect has it). */
  const fail = (e: ContainerError | OptionalContainerError, words?: Record<string, string>) =>
    graphRowFail(d.errors[e] as GraphErrorRow, words, d.errorType);
  const key = (...parts: string[]): string[] => [d.network, ...parts];
  const magic = graphMagicErrors(d.errorType);

  const container = (sim: SandboxKit, id: string) => sim.store.get<SandboxContainer>(key('container', id));
  const media = (sim: SandboxKit, id: string) => publishedMedia(sim.store, d.network, id);

  /** The owner's media, newest first. */
  const recent = async (sim: SandboxKit, ownerId: string, limit: number): Promise<SandboxMedia[]> => {
    const ids = await sim.store.list<string>(key('owner', ownerId, 'media'), 0, Math.max(0, limit - 1));
    return (await Promise.all(ids.map((id) => media(sim, id)))).filter((m) => m !== null);
  };

  /** Posts published in the last 24 h (hour buckets). */
  const publishedLastDay = async (sim: SandboxKit, ownerId: string): Promise<number> => {
    let n = 0;
    for (let h = 0; h < 24; h++) {
      const hour = new Date(Date.now() - h * 3600_000).toISOString().slice(0, 13);
      n += (await sim.store.get<number>(key('owner', ownerId, 'published', hour))) ?? 0;
    }
    return n;
  };

  /** How GET /{id} and /{id}/insights answer for the owner itself, or the network's error for them. */
  const ownerRoutes = (id: string): OwnerRoutes => {
    if (typeof d.owner === 'function') throw d.owner(id);
    return d.owner;
  };

  /** What a container of `kind` holds: an image must download now, a video's download problem shows while processing. */
  const contentOf = async (sim: SandboxKit, kind: ContainerKind, ownerId: string, text: string, body: Q) => {
    switch (kind) {
      case 'TEXT':
        if (!text && d.errors.textRequired) throw fail('textRequired');
        return { mediaType: 'TEXT_POST', mediaUrls: [] };
      case 'IMAGE': {
        const problem = await sim.media.problem(body.image_url, 'image');
        if (problem) throw fail('imageDownload', { problem });
        return { mediaType: 'IMAGE', mediaUrls: [body.image_url ?? ''] };
      }
      case 'VIDEO': {
        const problem = await sim.media.problem(body.video_url, 'video');
        const review = d.review && parseMagicWords(text).review;
        const readyAt = review ? Date.now() + sim.config.sandbox.reviewMs : null;
        const error = problem && d.videoError(problem);
        return { mediaType: 'VIDEO', mediaUrls: [body.video_url ?? ''], error, readyAt };
      }
      case 'CAROUSEL': {
        const children = (body.children ?? '').split(',').filter(Boolean);
        if (children.length < (d.rules.images.carouselMin ?? 2) || children.length > d.rules.images.max)
          throw fail('carouselSize');
        const mediaUrls: string[] = [];
        for (const id of children) {
          const child = await container(sim, id);
          if (!child || child.ownerId !== ownerId || !child.isCarouselItem) throw fail('invalidChild', { id });
          mediaUrls.push(...child.mediaUrls);
        }
        return { mediaType: 'CAROUSEL_ALBUM', mediaUrls };
      }
    }
  };

  /** A new container's id (a reply's to `replyTo`), checked against the network's rules. */
  const createFrom = async (sim: SandboxKit, ownerId: string, body: Q, replyTo?: string): Promise<{ id: string }> => {
    const text = body[d.textField] ?? '';
    if (codePoints(text) > d.rules.maxText) throw fail('textTooLong');
    if (d.errors.tooManyHashtags && countHashtags(text) > (d.rules.maxHashtags ?? Infinity))
      throw fail('tooManyHashtags');
    const type = (body.media_type ?? '').toUpperCase();
    const kind = Object.hasOwn(d.types, type) ? d.types[type] : d.otherType;
    if (!kind) throw fail('mediaType');
    const field = URL_FIELD[kind];
    if (field && !body[field] && d.errors.missingUrl) throw fail('missingUrl', { field });
    const content = await contentOf(sim, kind, ownerId, text, body);
    const isCarouselItem = body.is_carousel_item === 'true';
    const made = { id: numericId(), createdAt: new Date().toISOString(), polls: 0, mediaId: null, error: null };
    const c: SandboxContainer = { ...made, ownerId, text, isCarouselItem, ...content, replyTo };
    await sim.store.put(key('container', c.id), c);
    return { id: c.id };
  };

  /**
   * A FINISHED container becomes a post within the cap; a reply (Threads) becomes a comment on its
   * post: its own magic word, no post quota, no post magic words.
   */
  const publishFrom = async (sim: SandboxKit, owner: ContainerOwner, creationId: string | undefined) => {
    const c = creationId ? await container(sim, creationId) : null;
    const refused = c?.replyTo && commentRefusal(d.network, c.text);
    if (refused) throw fail('replyRefused', { m: refused });
    if (!c || c.ownerId !== owner.id) throw fail('invalidCreationId');
    const status = statusOf(c);
    if (status === 'IN_PROGRESS') throw fail('notReady');
    if (status === 'EXPIRED' && d.errors.expired) throw fail('expired');
    if (status === 'ERROR' || status === 'EXPIRED') throw fail('notPublishable', { reason: c.error ?? status });
    if (status === 'PUBLISHED') throw fail('published');
    if (!c.replyTo) {
      if ((await publishedLastDay(sim, owner.id)) >= sim.caps.cap(d.network).limit) throw fail('quota');
      const attempt = { platform: d.network, accountId: owner.id, text: c.text, contentKey: c.mediaUrls.join('|') };
      await enforceMagicWords(sim.store, attempt, magic);
    }
    const id = numericId();
    const { ownerId, mediaType, text, mediaUrls } = c;
    const permalink = `${sim.config.publicBaseUrl}/sandbox/${d.network}/${d.permalink.path(owner)}/${id}`;
    const post: SandboxMedia = { id, ownerId, mediaType, text, mediaUrls, timestamp: graphTime(new Date()), permalink };
    await sim.store.put(key('media', id), post);
    await sim.store.update<SandboxContainer>(key('container', c.id), (x) => ({ ...x, mediaId: id }));
    if (c.replyTo) {
      await addOwnComment(sim.store, d.network, c.replyTo, { id: owner.id, name: owner.username }, text, id);
      return { id };
    }
    await sim.store.push(key('owner', ownerId, 'media'), id);
    await sim.store.incr(key('owner', ownerId, 'published', new Date().toISOString().slice(0, 13)), 26 * 3600);
    return { id };
  };

  return [
    /** Before GET …/:id, which would take its path. */
    route(`GET ${version}/${d.profile.route}`, token, ({ caller }, sim) => d.profile.answer(sim, caller.grant)),
    route({ at: `POST ${version}/:owner/${collection}`, status: 201 }, owner, async ({ body, caller }, sim) => {
      // A network that takes replies (Threads) says what refuses their target.
      if (!d.errors.replyTarget || !body.reply_to_id) return createFrom(sim, caller.id, body);
      // A reply: the sandbox user may reply to their own posts (the owner's permission).
      const root = await media(sim, body.reply_to_id);
      if (!root || root.ownerId !== caller.id) throw fail('replyTarget');
      return createFrom(sim, caller.id, body, root.id);
    }),
    route({ at: `POST ${version}/:owner/${publish}`, status: 201 }, owner, ({ body, caller }, sim) =>
      publishFrom(sim, caller, body.creation_id),
    ),
    /** content_publishing_limit / threads_publishing_limit: the owner's posts of the last 24 h against the cap. */
    route(`GET ${version}/:owner/${limit}`, owner, async ({ caller }, sim) => {
      const config = { quota_total: sim.caps.cap(d.network).limit, quota_duration: 86400 };
      return { data: [{ quota_usage: await publishedLastDay(sim, caller.id), config }] };
    }),
    route({ at: `GET ${d.permalink.route}`, headers: HTML }, null, async ({ params: { id } }, sim) => {
      const post = await media(sim, id);
      return permalinkPage(d.permalink.label, post && { ...post, time: post.timestamp });
    }),
    route(`GET ${version}/:owner/${collection}`, owner, async ({ q, caller }, sim) => {
      const posts = await recent(sim, caller.id, pageSize(q.limit, 25, 100));
      return { data: posts.map((m) => d.view(m, caller)), paging: { cursors: { before: 'QVFI', after: 'QVFI' } } };
    }),
    route(`GET ${version}/:id/insights`, token, async ({ q, params: { id }, caller }, sim) => {
      const post = await media(sim, id);
      if (!post) return ownerRoutes(id).insights(await d.ownerOf(sim.store, id, caller), q);
      await d.ownerOf(sim.store, post.ownerId, caller);
      return { data: lifetimeInsights(id, d.insights(itemMetrics(id)), (q.metric ?? '').split(',')) };
    }),
    /** A container (its status; a read counts as one poll), a published post, or the owner. */
    route(`GET ${version}/:id`, token, async ({ params: { id }, caller }, sim) => {
      const c = await sim.store.update<SandboxContainer>(key('container', id), (x) => ({ ...x, polls: x.polls + 1 }));
      if (c) {
        await d.ownerOf(sim.store, c.ownerId, caller);
        return d.statusView(c, statusOf(c));
      }
      const post = await media(sim, id);
      if (post) return d.view(post, await d.ownerOf(sim.store, post.ownerId, caller));
      const routes = ownerRoutes(id);
      const o = await d.ownerOf(sim.store, id, caller);
      return routes.node(o, (await recent(sim, o.id, 100)).length);
    }),
  ];
}
