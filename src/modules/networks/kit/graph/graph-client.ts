import { PlatformError, type PublishResult } from '../adapter';
import { callNetwork, Json, NetworkCall, str } from '../http';
import { graphError } from './graph-errors';
import type { GraphList } from './graph-shapes';

export type GraphParams = Record<string, string | number | boolean | null | undefined>;

/** The Graph API on the kit's HTTP client: form POSTs, query GETs with `access_token`; error bodies even on a 200. */
export class GraphClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  /** `path` is relative to the base URL ('/me/accounts'), or absolute (a paging `next` URL). */
  get<T>(path: string, params: GraphParams, token?: string | null): Promise<T> {
    const url = new URL(this.url(path));
    for (const [k, v] of Object.entries(withToken(params, token))) url.searchParams.set(k, v);
    return this.send<T>({ url: url.toString() });
  }

  post<T>(path: string, params: GraphParams, token?: string | null): Promise<T> {
    return this.send<T>({ method: 'POST', url: this.url(path), form: withToken(params, token) });
  }

  /** A POST that creates the item (a post, a comment): see callNetwork's `creates`. */
  create<T>(path: string, params: GraphParams, token: string): Promise<T> {
    return this.send<T>({ method: 'POST', url: this.url(path), form: withToken(params, token), creates: true });
  }

  /** Every item of a list edge, following `paging.next` (at most `maxPages` pages). */
  async list<T>(path: string, params: GraphParams, token: string, maxPages = Infinity): Promise<T[]> {
    const out: T[] = [];
    let next: string | undefined = path;
    for (let page = 0; next && page < maxPages; page++) {
      // A paging link carries the query and the token already.
      const res: GraphList<T> = await this.get<GraphList<T>>(next, page ? {} : params, page ? null : token);
      out.push(...res.data);
      next = res.paging?.next;
    }
    return out;
  }

  /** A published item and its `link` field (null when it cannot be read: a missing link is not a failure). */
  async published(id: string, link: string, token: string): Promise<PublishResult> {
    const url = await this.get<Json>(`/${id}`, { fields: link }, token).then(
      (o) => str(o[link]) ?? null,
      () => null,
    );
    return { externalId: id, url };
  }

  /**
   * What an interrupted publish may have made, among the edge's recent items: the same `text` (a
   * missing `f.text` field reads as empty unless `f.textRequired`), made since `sinceMs` or at an unknown time.
   */
  async findRecent(
    path: string,
    params: GraphParams,
    token: string,
    f: { text: string; time: string; link: string; textRequired?: boolean },
    text: string,
    sinceMs: number,
  ): Promise<PublishResult | null> {
    const fields = `id,${f.text},${f.time},${f.link}`;
    const { data } = await this.get<GraphList<Json>>(path, { fields, ...params }, token);
    const hit = data.find((item) => {
      const [own, time] = [item[f.text], item[f.time]];
      const made = typeof time === 'string' && time ? Date.parse(time) : undefined;
      if (f.textRequired && typeof own !== 'string') return false;
      return (str(own) ?? '').trim() === text.trim() && (made === undefined || made >= sinceMs);
    });
    return hit ? { externalId: str(hit.id) ?? '', url: str(hit[f.link]) ?? null } : null;
  }

  private url(path: string): string {
    return /^https?:\/\//.test(path) ? path : `${this.baseUrl}${path.startsWith('/') ? '' : '/'}${path}`;
  }

  private async send<T>(call: Omit<NetworkCall, 'timeoutMs'>): Promise<T> {
    const reply = await callNetwork({ ...call, timeoutMs: this.timeoutMs }, (r) =>
      graphError(r.status, r.json, r.headers),
    );
    const body = reply.json;
    if (body !== null && typeof body === 'object' && 'error' in body)
      throw graphError(reply.status, body, reply.headers);
    // A creating call answered without a body may have created the item; any other call is worth a retry.
    const empty = `The network answered HTTP ${reply.status} without a JSON body.`;
    const category = call.creates ? 'unknown_outcome' : 'network_error';
    if (body === null) throw new PlatformError(empty, category, !call.creates, { status: reply.status });
    return body as T;
  }
}

function withToken(params: GraphParams, token?: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) out[k] = String(v);
  if (token) out.access_token = token;
  return out;
}
