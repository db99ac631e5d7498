import { PlatformError } from '../adapter';
import { graphError } from './graph-errors';

/** The fetch signature adapters use (tests pass a small fake; production uses the global one). */
export type FetchFn = (input: string, init: RequestInit) => Promise<Response>;
export type GraphParams = Record<string, string | number | boolean | null | undefined>;

export interface GraphCallOptions {
  /**
   * The call creates something on the network (publish). If its answer is lost or times out,
   * the outcome is unknown and must be checked before any retry (category unknown_outcome).
   */
  publish?: boolean;
}

/** Causes that prove the request never reached the network (safe to resend). */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Minimal Graph API HTTP client shared by the Facebook, Instagram and Threads adapters:
 * form-encoded POSTs and query-string GETs with `access_token`, a per-request time-out, and
 * Graph error bodies turned into PlatformError.
 */
export class GraphClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly fetchFn: FetchFn = (input, init) => fetch(input, init),
  ) {}

  /** `path` is relative to the base URL ('/me/accounts'), or absolute (a paging `next` URL). */
  async get<T>(path: string, params: GraphParams, token?: string | null, opts: GraphCallOptions = {}): Promise<T> {
    const url = new URL(this.url(path));
    for (const [k, v] of Object.entries(withToken(params, token))) url.searchParams.set(k, v);
    return this.send<T>(url.toString(), { method: 'GET' }, opts);
  }

  async post<T>(path: string, params: GraphParams, token?: string | null, opts: GraphCallOptions = {}): Promise<T> {
    const body = new URLSearchParams(withToken(params, token));
    return this.send<T>(
      this.url(path),
      { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      opts,
    );
  }

  private url(path: string): string {
    return /^https?:\/\//.test(path) ? path : `${this.baseUrl}${path.startsWith('/') ? '' : '/'}${path}`;
  }

  private async send<T>(url: string, init: RequestInit, opts: GraphCallOptions): Promise<T> {
    let res: Response;
    let text: string;
    try {
      res = await this.fetchFn(url, { ...init, signal: AbortSignal.timeout(this.timeoutMs) });
      text = await res.text();
    } catch (err) {
      throw transportError(err, opts.publish === true);
    }
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (!res.ok || (body !== null && typeof body === 'object' && 'error' in body))
      throw graphError(res.status, body, res.headers);
    if (body === null)
      throw new PlatformError(
        `The network answered HTTP ${res.status} without a JSON body.`,
        opts.publish ? 'unknown_outcome' : 'network_error',
        !opts.publish,
        { status: res.status },
      );
    return body as T;
  }
}

function withToken(params: GraphParams, token?: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) out[k] = String(v);
  if (token) out.access_token = token;
  return out;
}

/** A call that got no answer: unknown outcome for a publish, a retryable network error otherwise. */
export function transportError(err: unknown, publish: boolean): PlatformError {
  const name = err instanceof Error ? err.name : '';
  const cause = err instanceof Error ? (err.cause as { code?: string } | undefined) : undefined;
  const timedOut = name === 'TimeoutError' || name === 'AbortError';
  const what = timedOut
    ? 'The network did not answer in time'
    : `The connection to the network failed${cause?.code ? ` (${cause.code})` : ''}`;
  if (publish && !(cause?.code && NOT_SENT.has(cause.code))) {
    return new PlatformError(`${what}; the post may or may not have been published.`, 'unknown_outcome', false);
  }
  return new PlatformError(`${what}.`, 'network_error', true);
}
