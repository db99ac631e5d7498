import { PlatformError } from '../adapter';
import { ApiCall, Json, NetworkApi, NetworkReply, str } from '../http';
import { graphError } from './graph-errors';

export type GraphParams = Record<string, string | number | boolean | null | undefined>;
/** findRecent's fields of an item's text, time and link; without `textRequired`, a missing text reads as empty. */
type ItemFields = { text: string; time: string; link: string; textRequired?: boolean };

export interface GraphList<T> {
  data: T[];
  paging?: { cursors?: { after?: string }; next?: string };
}

export interface GraphInsight {
  name: string;
  values?: { value: number | Record<string, number>; end_time?: string }[];
  total_value?: { value: number };
}

const failed = (r: NetworkReply) => graphError(r.status, r.json, r.headers);

/** The Graph API: form POSTs, query GETs with `access_token` (no bearer header); error bodies even on a 200. */
export class GraphClient {
  private readonly api: NetworkApi;

  constructor(baseUrl: string, timeoutMs: number) {
    this.api = new NetworkApi(baseUrl, timeoutMs, failed);
  }

  /** `path` is relative to the base URL ('/me/accounts'), or absolute (a paging `next` URL, its query in it). */
  get<T>(path: string, params: GraphParams, token?: string | null): Promise<T> {
    const query = new URLSearchParams(withToken(params, token)).toString();
    return this.send<T>(query ? `${path}?${query}` : path, {});
  }

  post<T>(path: string, params: GraphParams, token?: string | null): Promise<T> {
    return this.send<T>(path, { method: 'POST', form: withToken(params, token) });
  }

  create<T>(path: string, params: GraphParams, token: string): Promise<T> {
    return this.send<T>(path, { method: 'POST', form: withToken(params, token), creates: true });
  }

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

  /** What an interrupted publish may have made: a recent item with the same `text`, made since `sinceMs` (or at an unknown time). */
  async findRecent(path: string, params: GraphParams, token: string, f: ItemFields, text: string, sinceMs: number) {
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

  private async send<T>(path: string, call: ApiCall): Promise<T> {
    const reply = await this.api.call(null, path, call);
    const body = reply.json;
    if (body !== null && typeof body === 'object' && 'error' in body) throw failed(reply);
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
