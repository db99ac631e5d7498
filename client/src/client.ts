import { randomUUID } from 'node:crypto';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { SpsApiError } from './errors';
import type { paths } from './generated/openapi';
import { iterateCursor, iteratePages } from './pagination';
import { RetryOptions, withRetries } from './retry';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

// Types of a route, read from the generated OpenAPI types. A route the document does not (yet)
// describe falls back to loose types instead of failing to compile.
type Operation<P extends string, M extends HttpMethod> = P extends keyof paths
  ? Lowercase<M> extends keyof paths[P]
    ? NonNullable<paths[P][Lowercase<M>]>
    : never
  : never;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : unknown;
type SuccessOf<Op> = Op extends { responses: infer R }
  ? 200 extends keyof R
    ? JsonOf<R[200]>
    : 201 extends keyof R
      ? JsonOf<R[201]>
      : unknown
  : unknown;
type Loose<T> = unknown extends T ? Record<string, unknown> : T;
/** The JSON body a route answers on success. */
export type ResponseOf<P extends string, M extends HttpMethod> = [Operation<P, M>] extends [never]
  ? unknown
  : SuccessOf<Operation<P, M>>;
/** The JSON body a route accepts. */
export type BodyOf<P extends string, M extends HttpMethod> = [Operation<P, M>] extends [never]
  ? Record<string, unknown>
  : Loose<Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : unknown>;
/** The query parameters a route accepts, plus `profileId` (accepted everywhere). */
export type QueryOf<P extends string, M extends HttpMethod = 'GET'> = ([Operation<P, M>] extends [never]
  ? Record<string, unknown>
  : Loose<Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : unknown>) & {
  profileId?: string;
};
type ItemOf<P extends string, K extends string> =
  ResponseOf<P, 'GET'> extends { [k in K]?: (infer T)[] } ? T : Record<string, unknown>;

export interface SpsClientOptions extends RetryOptions {
  /** `svc_live_…`; defaults to the SPS_API_KEY environment variable. */
  apiKey?: string;
  /** Defaults to SPS_BASE_URL, else http://localhost:3000. */
  baseUrl?: string;
  /** Profile every call acts on unless a call names another; default: the key's home profile. */
  profileId?: string;
  /** Custom fetch (tests, proxies). */
  fetch?: (request: Request) => Promise<Response>;
  /** Sent as User-Agent. */
  userAgent?: string;
}

export interface CallOptions {
  /** The profile to act on for this call (sent as the `profileId` query parameter). */
  profileId?: string;
  /** Writes: the Idempotency-Key. Generated per call when absent, and reused by every retry of that call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export interface RequestOptions extends CallOptions {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
}

type LooseRequest = (
  method: string,
  url: string,
  init: Record<string, unknown>,
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The typed client of the Social Publishing Service.
 *
 * Resource helpers (`sps.posts.create(...)`) resolve to the response body and throw
 * {@link SpsApiError} on failure. `sps.api` is the underlying openapi-fetch client for fully
 * typed calls (`const { data, error } = await sps.api.GET('/v1/profiles')`); it shares the
 * authentication, idempotency and retry behaviour.
 */
export class SpsClient {
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private readonly profileId?: string;

  constructor(options: SpsClientOptions = {}) {
    const apiKey = options.apiKey ?? process.env.SPS_API_KEY;
    if (!apiKey)
      throw new SpsApiError('authentication_required', 'No API key: pass apiKey or set SPS_API_KEY.', 0, null);
    this.baseUrl = (options.baseUrl ?? process.env.SPS_BASE_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
    this.profileId = options.profileId;
    const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: withRetries(baseFetch, options) });
    this.api.use(defaultHeaders(apiKey, options.userAgent ?? 'sps-client-node/1.0'));
  }

  /**
   * Calls any route: `path` is the route template (`/v1/posts/{id}`) with `path` parameters
   * filled in. Resolves to the JSON body; throws SpsApiError for an error answer.
   */
  async request<P extends string, M extends HttpMethod>(
    method: M,
    path: P,
    options: RequestOptions = {},
  ): Promise<ResponseOf<P, M>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.idempotencyKey) headers['Idempotency-Key'] = options.idempotencyKey;
    const profileId = options.profileId ?? this.profileId;
    const query = { ...(profileId ? { profileId } : {}), ...dropUndefined(options.query ?? {}) };
    const init = { params: { path: options.path, query }, body: options.body, headers, signal: options.signal };
    let result: Awaited<ReturnType<LooseRequest>>;
    try {
      result = await (this.api.request as unknown as LooseRequest)(method, path, init);
    } catch (err) {
      throw SpsApiError.network(err);
    }
    if (!result.response.ok) throw SpsApiError.fromResponse(result.response, result.error);
    return result.data as ResponseOf<P, M>;
  }

  /** Every item of an offset list (`page`/`limit`), fetched page by page. */
  paginate<P extends string, K extends string>(
    path: P,
    itemsKey: K,
    query: Record<string, unknown> & { limit?: number } = {},
    options: CallOptions = {},
  ): AsyncGenerator<ItemOf<P, K>, void, undefined> {
    return iteratePages(
      (page) =>
        this.request('GET', path, { ...options, query: { limit: 100, ...query, page } }) as Promise<
          Record<string, unknown>
        >,
      (page) => page[itemsKey] as ItemOf<P, K>[] | undefined,
      typeof query.page === 'number' ? query.page : 1,
    );
  }

  /** Every item of a cursor list (`cursor` → `nextCursor`). */
  paginateCursor<P extends string, K extends string>(
    path: P,
    itemsKey: K,
    query: Record<string, unknown> = {},
    options: CallOptions = {},
  ): AsyncGenerator<ItemOf<P, K>, void, undefined> {
    return iterateCursor(
      (cursor) =>
        this.request('GET', path, { ...options, query: { ...query, cursor } }) as Promise<
          Record<string, unknown> & { nextCursor?: string | null }
        >,
      (page) => page[itemsKey] as ItemOf<P, K>[] | undefined,
      typeof query.cursor === 'string' ? query.cursor : undefined,
    );
  }

  readonly profiles = {
    list: (query: QueryOf<'/v1/profiles'> = {}, o?: CallOptions) =>
      this.request('GET', '/v1/profiles', { ...o, query }),
    iterate: (query: QueryOf<'/v1/profiles'> = {}, o?: CallOptions) =>
      this.paginate('/v1/profiles', 'profiles', query, o),
    current: (o?: CallOptions) => this.request('GET', '/v1/profile', o),
    get: (id: string, o?: CallOptions) => this.request('GET', '/v1/profiles/{id}', { ...o, path: { id } }),
    create: (body: BodyOf<'/v1/profiles', 'POST'>, o?: CallOptions) =>
      this.request('POST', '/v1/profiles', { ...o, body }),
    update: (id: string, body: BodyOf<'/v1/profiles/{id}', 'PATCH'>, o?: CallOptions) =>
      this.request('PATCH', '/v1/profiles/{id}', { ...o, path: { id }, body }),
    delete: (id: string, o?: CallOptions) => this.request('DELETE', '/v1/profiles/{id}', { ...o, path: { id } }),
  };

  readonly apiKeys = {
    list: (query: QueryOf<'/v1/api-keys'> = {}, o?: CallOptions) =>
      this.request('GET', '/v1/api-keys', { ...o, query }),
    iterate: (query: QueryOf<'/v1/api-keys'> = {}, o?: CallOptions) =>
      this.paginate('/v1/api-keys', 'apiKeys', query, o),
    create: (body: BodyOf<'/v1/api-keys', 'POST'>, o?: CallOptions) =>
      this.request('POST', '/v1/api-keys', { ...o, body }),
    revoke: (id: string, o?: CallOptions) => this.request('DELETE', '/v1/api-keys/{id}', { ...o, path: { id } }),
  };

  readonly accounts = {
    list: (o?: CallOptions) => this.request('GET', '/v1/accounts', o),
    get: (id: string, o?: CallOptions) => this.request('GET', '/v1/accounts/{id}', { ...o, path: { id } }),
    update: (id: string, body: BodyOf<'/v1/accounts/{id}', 'PATCH'>, o?: CallOptions) =>
      this.request('PATCH', '/v1/accounts/{id}', { ...o, path: { id }, body }),
    disconnect: (id: string, o?: CallOptions) => this.request('DELETE', '/v1/accounts/{id}', { ...o, path: { id } }),
    /** The network's publishing caps for the account and how much of each is used. */
    limits: (id: string, o?: CallOptions) => this.request('GET', '/v1/accounts/{id}/limits', { ...o, path: { id } }),
  };

  /** The profile's posting queue: weekly slots in a time zone, used by posts created with addToQueue. */
  readonly queue = {
    get: (o?: CallOptions) => this.request('GET', '/v1/queue', o),
    set: (body: BodyOf<'/v1/queue', 'PUT'>, o?: CallOptions) => this.request('PUT', '/v1/queue', { ...o, body }),
    nextSlots: (query: QueryOf<'/v1/queue/next-slots'> = {}, o?: CallOptions) =>
      this.request('GET', '/v1/queue/next-slots', { ...o, query }),
  };

  readonly posts = {
    list: (query: QueryOf<'/v1/posts'> = {}, o?: CallOptions) => this.request('GET', '/v1/posts', { ...o, query }),
    iterate: (query: QueryOf<'/v1/posts'> = {}, o?: CallOptions) => this.paginate('/v1/posts', 'posts', query, o),
    get: (id: string, o?: CallOptions) => this.request('GET', '/v1/posts/{id}', { ...o, path: { id } }),
    create: (body: BodyOf<'/v1/posts', 'POST'>, o?: CallOptions) => this.request('POST', '/v1/posts', { ...o, body }),
    validate: (body: BodyOf<'/v1/posts/validate', 'POST'>, o?: CallOptions) =>
      this.request('POST', '/v1/posts/validate', { ...o, body }),
    /** Up to 100 posts, all or nothing (201 { posts }); with `dryRun: true`, 200 { valid, results }. */
    bulk: (body: BodyOf<'/v1/posts/bulk', 'POST'>, o?: CallOptions) =>
      this.request('POST', '/v1/posts/bulk', { ...o, body }),
    update: (id: string, body: BodyOf<'/v1/posts/{id}', 'PUT'>, o?: CallOptions) =>
      this.request('PUT', '/v1/posts/{id}', { ...o, path: { id }, body }),
    cancel: (id: string, o?: CallOptions) => this.request('DELETE', '/v1/posts/{id}', { ...o, path: { id } }),
    publish: (id: string, o?: CallOptions) => this.request('POST', '/v1/posts/{id}/publish', { ...o, path: { id } }),
    retry: (id: string, o?: CallOptions) => this.request('POST', '/v1/posts/{id}/retry', { ...o, path: { id } }),
    history: (id: string, o?: CallOptions) => this.request('GET', '/v1/posts/{id}/history', { ...o, path: { id } }),
    approve: (id: string, o?: CallOptions) => this.request('POST', '/v1/posts/{id}/approve', { ...o, path: { id } }),
    reject: (id: string, body: BodyOf<'/v1/posts/{id}/reject', 'POST'> = {}, o?: CallOptions) =>
      this.request('POST', '/v1/posts/{id}/reject', { ...o, path: { id }, body }),
  };

  readonly media = {
    createUploadUrl: (body: BodyOf<'/v1/media/upload', 'POST'>, o?: CallOptions) =>
      this.request('POST', '/v1/media/upload', { ...o, body }),
  };

  readonly analytics = {
    history: (query: QueryOf<'/v1/analytics/history'> = {}, o?: CallOptions) =>
      this.request('GET', '/v1/analytics/history', { ...o, query }),
  };

  readonly comments = {
    list: (query: QueryOf<'/v1/comments'> = {}, o?: CallOptions) =>
      this.request('GET', '/v1/comments', { ...o, query }),
    iterate: (query: QueryOf<'/v1/comments'> = {}, o?: CallOptions) =>
      this.paginateCursor('/v1/comments', 'comments', query, o),
  };

  readonly webhooks = {
    list: (o?: CallOptions) => this.request('GET', '/v1/webhooks', o),
    get: (id: string, o?: CallOptions) => this.request('GET', '/v1/webhooks/{id}', { ...o, path: { id } }),
    create: (body: BodyOf<'/v1/webhooks', 'POST'>, o?: CallOptions) =>
      this.request('POST', '/v1/webhooks', { ...o, body }),
    update: (id: string, body: BodyOf<'/v1/webhooks/{id}', 'PATCH'>, o?: CallOptions) =>
      this.request('PATCH', '/v1/webhooks/{id}', { ...o, path: { id }, body }),
    delete: (id: string, o?: CallOptions) => this.request('DELETE', '/v1/webhooks/{id}', { ...o, path: { id } }),
    test: (id: string, body: BodyOf<'/v1/webhooks/{id}/test', 'POST'>, o?: CallOptions) =>
      this.request('POST', '/v1/webhooks/{id}/test', { ...o, path: { id }, body }),
    rotateSecret: (id: string, o?: CallOptions) =>
      this.request('POST', '/v1/webhooks/{id}/rotate-secret', { ...o, path: { id } }),
    deliveries: (id: string, query: QueryOf<'/v1/webhooks/{id}/deliveries'> = {}, o?: CallOptions) =>
      this.request('GET', '/v1/webhooks/{id}/deliveries', { ...o, path: { id }, query }),
  };

  readonly events = {
    list: (query: QueryOf<'/v1/events'> = {}, o?: CallOptions) => this.request('GET', '/v1/events', { ...o, query }),
    iterate: (query: QueryOf<'/v1/events'> = {}, o?: CallOptions) => this.paginate('/v1/events', 'events', query, o),
  };

  readonly logs = {
    list: (query: QueryOf<'/v1/logs'> = {}, o?: CallOptions) => this.request('GET', '/v1/logs', { ...o, query }),
    iterate: (query: QueryOf<'/v1/logs'> = {}, o?: CallOptions) => this.paginate('/v1/logs', 'logs', query, o),
  };
}

/** Shorthand for `new SpsClient(options)`. */
export function createSpsClient(options: SpsClientOptions = {}): SpsClient {
  return new SpsClient(options);
}

/** Bearer key, JSON accept, and an Idempotency-Key on every write that has none (retries reuse it). */
function defaultHeaders(apiKey: string, userAgent: string): Middleware {
  return {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${apiKey}`);
      request.headers.set('Accept', 'application/json');
      request.headers.set('User-Agent', userAgent);
      if (WRITES.has(request.method) && !request.headers.has('Idempotency-Key'))
        request.headers.set('Idempotency-Key', randomUUID());
      return request;
    },
  };
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));
}
