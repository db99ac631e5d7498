import { PlatformError, StillProcessingError } from '../adapter';
import type { AccountCredentials, AdapterEndpoints, DailyAccountMetrics, ProcessingCheck } from '../adapter';
import type { PublishContent, PublishLookup, PublishRequest, PublishResult } from '../adapter';
import type { NetworkCapUsage } from '../caps';
import { daysBetween, unixDay } from '../days';
import { type Json, num, pollOrThrow, str } from '../http';
import { counterNames, Counters, dayFromCounters } from '../metrics';
import { NetworkLogin, PollingOptions, progress } from '../network-adapter';
import { GraphAdapter } from './graph-adapter';
import type { GraphClient, GraphList, GraphParams } from './graph-client';

/**
 * The container flow of Instagram and Threads: [carousel children] → POST /{user}/<edge> →
 * GET /{container} until FINISHED → POST /{user}/<publish edge> { creation_id }.
 */
type ContainerPublishState = {
  childIds?: string[];
  containerId?: string;
  publishSentAt?: string;
  mediaId?: string;
};

/** A network's containers; an image post of its rules' `images.carouselMin` or more images is a carousel. */
export interface ContainerFlavor {
  /** Edges (Instagram / Threads): 'media' / 'threads' (its publish edge: `<edge>_publish`), '…_publishing_limit'. */
  containerEdge: string;
  limitEdge: string;
  /** A container's status and ERROR reason: 'status_code' and 'status' / 'status' and 'error_message'. */
  statusField: string;
  errorField: string;
  textField: string;
  childParams(url: string): GraphParams;
  containerParams(content: PublishContent, childIds: string[]): GraphParams;
  /** Refuses the publish call on what the limit edge says (Instagram). */
  beforePublish?(usage: NetworkCapUsage): void;
}

type PublishingLimit = { quota_usage?: number; config?: { quota_total?: number } };

/** How a container network reads an account's day: its insights edge and mapping, and where followers come from. */
export interface DailyInsights {
  edge: string;
  counters: Counters;
  params?: GraphParams;
  /** The account's followers_count field (no history: every day carries today's), or the day's followers_count metric. */
  followers: 'account-field' | 'metric';
}

/** Account insights answer at most this many days: one call per day. */
const MAX_DAYS = 93;

export abstract class ContainerAdapter extends GraphAdapter {
  protected abstract readonly containers: ContainerFlavor;
  protected abstract readonly daily: DailyInsights;
  protected readonly permalink = 'permalink';

  constructor(endpoints: AdapterEndpoints, options: PollingOptions, login: (graph: GraphClient) => NetworkLogin) {
    // A container's status checked once a second for the endpoints' processingWaitMs (a minute when unset).
    const polls = Math.max(1, Math.ceil((endpoints.processingWaitMs ?? 60_000) / 1000));
    super(endpoints, login, options.pollDelaysMs ?? Array<number>(polls - 1).fill(1000));
  }

  publish(req: PublishRequest): Promise<PublishResult> {
    return this.publishContainer(req, (childIds) => this.containers.containerParams(req.content, childIds));
  }

  /** The container flow, its main container's parameters from `params` (a Threads reply has its own). */
  protected async publishContainer(req: PublishRequest, params: (childIds: string[]) => GraphParams) {
    const { account, content } = req;
    const [user, token, f] = [account.platformAccountId, account.accessToken, this.containers];
    const { state, save } = progress<ContainerPublishState>(req);
    if (state.mediaId) return this.result(state.mediaId, token);
    const cannotTell = 'An earlier publish call may have succeeded; the network cannot tell yet.';
    const found = await this.lookBeforeResending(req, state.publishSentAt, cannotTell);
    if (found) {
      await save({ mediaId: found.externalId });
      return found;
    }
    if (!state.containerId) {
      const create = async (params: GraphParams) =>
        (await this.graph.post<{ id: string }>(`/${user}/${f.containerEdge}`, params, token)).id;
      const childIds = [...(state.childIds ?? [])];
      if (content.contentType === 'image' && content.imageUrls.length >= (this.rules.images.carouselMin ?? 2)) {
        for (const url of content.imageUrls.slice(childIds.length)) {
          childIds.push(await create(f.childParams(url)));
          await save({ childIds });
        }
      }
      await save({ containerId: await create(params(childIds)) });
    }
    const containerId = state.containerId!;
    const status = await this.waitFinished(containerId, token);
    if (status === 'EXPIRED') {
      await save({ containerId: undefined, childIds: undefined });
      const expired = 'The media container expired before it was published; it will be recreated.';
      throw new PlatformError(expired, 'network_error', true);
    }
    if (status !== 'PUBLISHED') {
      f.beforePublish?.(await this.publishingUsage(account));
      // Saved before the call: if its answer is lost, the next attempt looks for the item before publishing again.
      await save({ publishSentAt: new Date().toISOString() });
      const publishEdge = `/${user}/${f.containerEdge}_publish`;
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
    const { containerEdge, textField, statusField } = this.containers;
    const container = await this.graph.get<Json>(`/${state.containerId}`, { fields: `id,${statusField}` }, token);
    if (container[statusField] !== 'PUBLISHED') return null;
    const path = `/${req.account.platformAccountId}/${containerEdge}`;
    const fields = { text: textField, time: 'timestamp', link: this.permalink };
    const since = Date.parse(state.publishSentAt) - 120_000;
    return (await this.graph.findRecent(path, { limit: 25 }, token, fields, req.content.text, since)) ?? 'unknown';
  }

  async publishingUsage(account: AccountCredentials): Promise<NetworkCapUsage> {
    const path = `/${account.platformAccountId}/${this.containers.limitEdge}`;
    const fields = { fields: 'quota_usage,config' };
    const limits = await this.graph.get<GraphList<PublishingLimit>>(path, fields, account.accessToken);
    const entry = limits.data[0];
    const used = typeof entry?.quota_usage === 'number' ? entry.quota_usage : null;
    const limit = typeof entry?.config?.quota_total === 'number' ? entry.config.quota_total : null;
    return { used, limit, exhausted: used !== null && limit !== null && used >= limit };
  }

  private async containerStatus(containerId: string, token: string): Promise<{ status: string; reason: unknown }> {
    const { statusField, errorField } = this.containers;
    const c = await this.graph.get<Json>(`/${containerId}`, { fields: `id,${statusField},${errorField}` }, token);
    return { status: str(c[statusField]) ?? '', reason: c[errorField] };
  }

  private waitFinished(containerId: string, token: string): Promise<string> {
    const stillBusy = 'The network is still processing the media container; it is checked again later.';
    return pollOrThrow(this.pollDelaysMs, new StillProcessingError(stillBusy), async () => {
      const { status, reason } = await this.containerStatus(containerId, token);
      if (status === 'ERROR') throw processingError(reason);
      return ['FINISHED', 'PUBLISHED', 'EXPIRED'].includes(status) ? status : undefined;
    });
  }

  async getDailyMetrics(account: AccountCredentials, from: string, to: string): Promise<DailyAccountMetrics[]> {
    const { accessToken: token, platformAccountId: user } = account;
    const { edge, counters, params, followers } = this.daily;
    const fixed =
      followers === 'account-field'
        ? num((await this.graph.get<Json>(`/${user}`, { fields: 'followers_count' }, token)).followers_count)
        : undefined;
    const metrics = [...counterNames(counters, 'day'), ...(fixed === undefined ? ['followers_count'] : [])];
    const out: DailyAccountMetrics[] = [];
    for (const date of daysBetween(from, to, MAX_DAYS)) {
      const day = { ...params, since: unixDay(date), until: unixDay(date, 1) };
      const read = await this.insights(`/${user}/${edge}`, metrics, token, day);
      out.push({ date, ...dayFromCounters(counters, read), followers: fixed ?? read('followers_count') });
    }
    return out;
  }
}

function processingError(reason: unknown): PlatformError {
  const why = str(reason) ?? '';
  const message = `The network could not process the media: ${why || 'unknown error'}.`;
  return new PlatformError(message, 'media_rejected', false, { networkCode: why || 'ERROR' });
}
