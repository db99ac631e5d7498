import type { AccountCredentials, AdapterEndpoints, CommentsPage, DailyAccountMetrics, ItemMetrics } from '../adapter';
import type { CommentRequest, CommentResult, PlatformAdapter } from '../adapter';
import { daysBetween } from '../days';
import { num, str, type Json } from '../http';
import { counterNames, Counters, dayFromCounters, itemFromCounters } from '../metrics';
import { NetworkAdapter, NetworkLogin } from '../network-adapter';
import { ContainerFlavor, ContainerPublisher, PollOptions } from './container-publisher';
import { GraphClient, GraphParams } from './graph-client';
import { GraphInsight, GraphList, insightTotal, unixDay } from './graph-shapes';

/** How a Graph network lists a post's comments: the query, and the fields of a comment's text, time and author. */
export interface GraphComments {
  params: GraphParams;
  text: string;
  time: string;
  author: (comment: Json) => string | undefined;
  /** The author's name when the network gives none. */
  anonymous: string;
}

/** What the Graph adapters share: the client and its login, insights through a metrics mapping, comment pages. */
export abstract class GraphAdapter extends NetworkAdapter {
  protected readonly graph: GraphClient;
  /** A post's insights (`GET /{id}/insights`) → our numbers. */
  protected abstract readonly postCounters: Counters;
  /** Where the network lists a post's comments; absent = it offers none (NetworkAdapter's answer). */
  protected readonly comments?: GraphComments;

  /** `login` is built on the adapter's Graph client (Facebook Login) or on its own (Threads). */
  constructor(endpoints: AdapterEndpoints, login: (graph: GraphClient) => NetworkLogin) {
    const graph = new GraphClient(endpoints.apiBaseUrl, endpoints.timeoutMs);
    super(login(graph));
    this.graph = graph;
  }

  /** The account's comment on its own object: POST /{object-id}/comments { message } → `{ id }`. */
  async postComment({ account, externalId, text }: CommentRequest): Promise<CommentResult> {
    const path = `/${externalId}/comments`;
    return { id: (await this.graph.create<{ id: string }>(path, { message: text }, account.accessToken)).id };
  }

  async getItemMetrics(account: AccountCredentials, externalId: string): Promise<ItemMetrics> {
    const metrics = counterNames(this.postCounters, 'item');
    const read = await this.insights(`/${externalId}/insights`, metrics, account.accessToken);
    return itemFromCounters(this.postCounters, read);
  }

  /** The named metrics of an insights edge; a metric reads as its total_value or the sum of its values. */
  protected async insights(path: string, metrics: string[], token: string, params: GraphParams = {}) {
    const res = await this.graph.get<GraphList<GraphInsight>>(path, { metric: metrics.join(','), ...params }, token);
    return (name: string): number => insightTotal(res.data, name);
  }

  /** One page (25, oldest first where the network orders) of a post's comments. */
  override async listComments(
    account: AccountCredentials,
    postId: string,
    cursor?: string | null,
  ): Promise<CommentsPage> {
    const shape = this.comments;
    if (!shape) return super.listComments(account, postId, cursor);
    const query = { ...shape.params, limit: 25, after: cursor ?? undefined };
    const res = await this.graph.get<GraphList<Json>>(`/${postId}/comments`, query, account.accessToken);
    const comments = res.data.map((c) => ({
      id: str(c.id) ?? '',
      externalPostId: postId,
      authorName: shape.author(c) ?? shape.anonymous,
      text: str(c[shape.text]) ?? '',
      createdAt: new Date(str(c[shape.time]) ?? '').toISOString(),
    }));
    return { comments, nextCursor: res.paging?.next ? (res.paging.cursors?.after ?? null) : null };
  }
}

/** How a container network reads an account's day: its insights edge and mapping, and where followers come from. */
export interface DailyInsights {
  /** 'insights' (Instagram) / 'threads_insights' */
  edge: string;
  counters: Counters;
  params?: GraphParams;
  /** The account's followers_count field (no history: every day carries today's), or the day's followers_count metric. */
  followers: 'account-field' | 'metric';
}

/** Account insights answer at most this many days: one call per day. */
const MAX_DAYS = 93;

/** Instagram and Threads: publishing through media containers, account insights one day per call. */
export abstract class ContainerAdapter extends GraphAdapter {
  protected readonly publisher: ContainerPublisher;
  protected abstract readonly daily: DailyInsights;

  constructor(
    endpoints: AdapterEndpoints,
    poll: PollOptions | undefined,
    login: (graph: GraphClient) => NetworkLogin,
    flavor: ContainerFlavor,
  ) {
    super(endpoints, login);
    // One poll a second for the endpoints' processingWaitMs (a minute when unset).
    const polls = Math.max(1, Math.ceil((endpoints.processingWaitMs ?? 60_000) / 1000));
    this.publisher = new ContainerPublisher(this.graph, flavor, poll ?? { intervalMs: 1000, maxPolls: polls });
  }

  readonly publish: PlatformAdapter['publish'] = (req) => this.publisher.publish(req);
  readonly findPublished: PlatformAdapter['findPublished'] = (req) => this.publisher.findPublished(req);
  readonly checkProcessing: Required<PlatformAdapter>['checkProcessing'] = (req) => this.publisher.checkProcessing(req);
  /** The rolling 24 h cap as the network counts it (its publishing-limit edge). */
  readonly publishingUsage: Required<PlatformAdapter>['publishingUsage'] = (account) =>
    this.publisher.usage(account.platformAccountId, account.accessToken);

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
