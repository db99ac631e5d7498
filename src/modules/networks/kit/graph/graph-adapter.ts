import type {
  AccountCredentials,
  AdapterEndpoints,
  CommentRequest,
  CommentResult,
  ItemMetrics,
  PublishResult,
} from '../adapter';
import { str, type Json } from '../http';
import { counterNames, Counters, itemFromCounters } from '../metrics';
import { NetworkAdapter, NetworkLogin } from '../network-adapter';
import { GraphClient, GraphInsight, GraphList, GraphParams } from './graph-client';

/** How a Graph network lists a post's comments: the query, and the fields of a comment's text, time and author. */
export interface GraphComments {
  params: GraphParams;
  text: string;
  time: string;
  author: (comment: Json) => string | undefined;
  /** The author's name when the network gives none. */
  anonymous: string;
}

export abstract class GraphAdapter extends NetworkAdapter {
  protected readonly graph: GraphClient;
  protected abstract readonly postCounters: Counters;
  /** The field of a published item's URL: 'permalink_url' (Facebook) or 'permalink'. */
  protected abstract readonly permalink: string;
  /** Where the network lists a post's comments; absent = it offers none (NetworkAdapter's answer). */
  protected readonly comments?: GraphComments;

  constructor(endpoints: AdapterEndpoints, login: (graph: GraphClient) => NetworkLogin, pollDelaysMs?: number[]) {
    const graph = new GraphClient(endpoints.apiBaseUrl, endpoints.timeoutMs);
    super(login(graph), pollDelaysMs);
    this.graph = graph;
  }

  async postComment({ account, externalId, text }: CommentRequest): Promise<CommentResult> {
    const path = `/${externalId}/comments`;
    return { id: (await this.graph.create<{ id: string }>(path, { message: text }, account.accessToken)).id };
  }

  /** A published item and its URL (null when it cannot be read: a missing link is not a failure). */
  protected async result(id: string, token: string): Promise<PublishResult> {
    const link = this.permalink;
    const url = this.graph.get<Json>(`/${id}`, { fields: link }, token).then((o) => str(o[link]) ?? null);
    return { externalId: id, url: await url.catch(() => null) };
  }

  async getItemMetrics(account: AccountCredentials, externalId: string): Promise<ItemMetrics> {
    const metrics = counterNames(this.postCounters, 'item');
    const read = await this.insights(`/${externalId}/insights`, metrics, account.accessToken);
    return itemFromCounters(this.postCounters, read);
  }

  /** The named metrics of an insights edge; a metric reads as its total_value or the sum of its numeric values. */
  protected async insights(path: string, metrics: string[], token: string, params: GraphParams = {}) {
    const res = await this.graph.get<GraphList<GraphInsight>>(path, { metric: metrics.join(','), ...params }, token);
    return (name: string): number => {
      const m = res.data.find((i) => i.name === name);
      if (m?.total_value) return m.total_value.value;
      return (m?.values ?? []).reduce((s, v) => s + (typeof v.value === 'number' ? v.value : 0), 0);
    };
  }

  override async listComments(account: AccountCredentials, postId: string, cursor?: string | null) {
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
