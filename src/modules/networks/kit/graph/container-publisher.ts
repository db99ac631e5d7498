import { PlatformError, StillProcessingError } from '../adapter';
import type { ProcessingCheck, PublishContent, PublishLookup, PublishRequest, PublishResult } from '../adapter';
import { ContentRules, isCarousel } from '../content-rules';
import { lookFirst, progress } from '../network-adapter';
import { type Json, pollOrThrow, str } from '../http';
import type { GraphClient, GraphParams } from './graph-client';
import type { GraphList } from './graph-shapes';
import type { NetworkCapUsage } from '../caps';

/**
 * The container flow of Instagram and Threads: [carousel children] → POST /{user}/<edge> →
 * GET /{container} until FINISHED → POST /{user}/<publish edge> { creation_id }. Ids and the
 * publish call's time are saved before the next call, for findPublished after a lost answer.
 */
type ContainerPublishState = {
  childIds?: string[];
  containerId?: string;
  /** ISO time the publish call was sent (its outcome may be unknown). */
  publishSentAt?: string;
  mediaId?: string;
};

export interface ContainerFlavor {
  /** The network's content rules: an image post of `images.carouselMin` or more images is a carousel. */
  rules: ContentRules;
  /** Edges (Instagram / Threads): 'media' / 'threads', 'media_publish' / 'threads_publish', '…_publishing_limit'. */
  containerEdge: string;
  publishEdge: string;
  limitEdge: string;
  /** A container's status and ERROR reason: 'status_code' and 'status' / 'status' and 'error_message'. */
  statusField: string;
  errorField: string;
  /** The media's text: 'caption' / 'text'. */
  textField: string;
  childParams(url: string): GraphParams;
  /** The main container's parameters (childIds set for a carousel). */
  containerParams(content: PublishContent, childIds: string[]): GraphParams;
  /** Refuses the publish call on what the limit edge says (Instagram). */
  beforePublish?(usage: NetworkCapUsage): void;
}

export type PollOptions = { intervalMs: number; maxPolls: number };

/** Graph's publishing limit: `{ data: [{ quota_usage, config: { quota_total, quota_duration } }] }`. */
type PublishingLimit = { quota_usage: number; config?: { quota_total: number; quota_duration: number } };

export class ContainerPublisher {
  constructor(
    private readonly graph: GraphClient,
    private readonly flavor: ContainerFlavor,
    private readonly poll: PollOptions,
  ) {}

  /** A publisher of other containers of the same network, polled the same way (Threads' replies). */
  for(flavor: ContainerFlavor): ContainerPublisher {
    return new ContainerPublisher(this.graph, flavor, this.poll);
  }

  async publish(req: PublishRequest): Promise<PublishResult> {
    const { account, content } = req;
    const [user, token, f] = [account.platformAccountId, account.accessToken, this.flavor];
    const { state, save } = progress<ContainerPublishState>(req);
    if (state.mediaId) return this.result(state.mediaId, token);
    const cannotTell = 'An earlier publish call may have succeeded; the network cannot tell yet.';
    const found = await lookFirst(state.publishSentAt, () => this.findPublished(req), cannotTell);
    if (found) {
      await save({ mediaId: found.externalId });
      return found;
    }
    if (!state.containerId) {
      const create = async (params: GraphParams) =>
        (await this.graph.post<{ id: string }>(`/${user}/${f.containerEdge}`, params, token)).id;
      const childIds = [...(state.childIds ?? [])];
      if (isCarousel(f.rules, content)) {
        for (const url of content.imageUrls.slice(childIds.length)) {
          childIds.push(await create(f.childParams(url)));
          await save({ childIds });
        }
      }
      await save({ containerId: await create(f.containerParams(content, childIds)) });
    }
    const containerId = state.containerId!;
    const status = await this.waitFinished(containerId, token);
    if (status === 'EXPIRED') {
      await save({ containerId: undefined, childIds: undefined });
      const expired = 'The media container expired before it was published; it will be recreated.';
      throw new PlatformError(expired, 'network_error', true);
    }
    if (status !== 'PUBLISHED') {
      f.beforePublish?.(await this.usage(user, token));
      await save({ publishSentAt: new Date().toISOString() });
      const publishEdge = `/${user}/${f.publishEdge}`;
      const media = await this.graph.create<{ id: string }>(publishEdge, { creation_id: containerId }, token);
      await save({ mediaId: media.id });
      return this.result(media.id, token);
    }
    // The container says it was published by an earlier attempt: find the media.
    const publishSentAt = state.publishSentAt ?? new Date(Date.now() - 86_400_000).toISOString();
    const published = await this.findPublished({ account, content, publishState: { ...state, publishSentAt } });
    if (published && published !== 'unknown') return published;
    const notFound = 'The container was published but its media could not be found yet.';
    throw new PlatformError(notFound, 'unknown_outcome', false);
  }

  /** One look at the saved container: IN_PROGRESS → processing, ERROR → failed, else ready (publish continues). */
  async checkProcessing(req: PublishLookup): Promise<ProcessingCheck> {
    const state = req.publishState as ContainerPublishState;
    const token = req.account.accessToken;
    if (state.mediaId) return { status: 'published', result: await this.result(state.mediaId, token) };
    if (!state.containerId) return { status: 'ready' };
    const { status, reason } = await this.containerStatus(state.containerId, token);
    if (status === 'ERROR') return { status: 'failed', error: processingError(reason) };
    return status === 'IN_PROGRESS' ? { status: 'processing' } : { status: 'ready' };
  }

  async findPublished(req: PublishLookup): Promise<PublishResult | null | 'unknown'> {
    const state = req.publishState as ContainerPublishState;
    const token = req.account.accessToken;
    if (state.mediaId) return this.result(state.mediaId, token);
    if (!state.containerId || !state.publishSentAt) return null;
    const { containerEdge, textField, statusField } = this.flavor;
    const container = await this.graph.get<Json>(`/${state.containerId}`, { fields: `id,${statusField}` }, token);
    if (container[statusField] !== 'PUBLISHED') return null;
    const path = `/${req.account.platformAccountId}/${containerEdge}`;
    const fields = { text: textField, time: 'timestamp', link: 'permalink' };
    const since = Date.parse(state.publishSentAt) - 120_000;
    return (await this.graph.findRecent(path, { limit: 25 }, token, fields, req.content.text, since)) ?? 'unknown';
  }

  /** What the network says about the account's cap: `GET /{user}/<limit edge>?fields=quota_usage,config`. */
  async usage(user: string, token: string): Promise<NetworkCapUsage> {
    const path = `/${user}/${this.flavor.limitEdge}`;
    const limits = await this.graph.get<GraphList<PublishingLimit>>(path, { fields: 'quota_usage,config' }, token);
    const entry = limits.data[0];
    const used = typeof entry?.quota_usage === 'number' ? entry.quota_usage : null;
    const limit = typeof entry?.config?.quota_total === 'number' ? entry.config.quota_total : null;
    return { used, limit, exhausted: used !== null && limit !== null && used >= limit };
  }

  /** The container's status, and the network's reason when it is ERROR. */
  private async containerStatus(containerId: string, token: string): Promise<{ status: string; reason: unknown }> {
    const { statusField, errorField } = this.flavor;
    const c = await this.graph.get<Json>(`/${containerId}`, { fields: `id,${statusField},${errorField}` }, token);
    return { status: str(c[statusField]) ?? '', reason: c[errorField] };
  }

  /** Polls the container; ERROR → media_rejected with the network's reason; still busy → StillProcessingError. */
  private waitFinished(containerId: string, token: string): Promise<string> {
    const delays = Array<number>(Math.max(0, this.poll.maxPolls - 1)).fill(this.poll.intervalMs);
    const stillBusy = 'The network is still processing the media container; it is checked again later.';
    return pollOrThrow(delays, new StillProcessingError(stillBusy), async () => {
      const { status, reason } = await this.containerStatus(containerId, token);
      if (status === 'ERROR') throw processingError(reason);
      return ['FINISHED', 'PUBLISHED', 'EXPIRED'].includes(status) ? status : undefined;
    });
  }

  private result(id: string, token: string): Promise<PublishResult> {
    return this.graph.published(id, 'permalink', token);
  }
}

function processingError(reason: unknown): PlatformError {
  const why = str(reason) ?? '';
  const message = `The network could not process the media: ${why || 'unknown error'}.`;
  return new PlatformError(message, 'media_rejected', false, { networkCode: why || 'ERROR' });
}
