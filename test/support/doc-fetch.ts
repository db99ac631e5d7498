import { STATUS_CODES } from 'node:http';
import { Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { loadConfig } from '@/config/config';
import type {
  AccountCredentials,
  PlatformAdapter,
  PublishContent,
  PublishRequest,
} from '@/modules/networks/kit/adapter';

/**
 * A scripted stand-in for the networks, for adapter unit tests that replay response bodies
 * copied from the networks' documentation, installed as undici's global dispatcher (DocFetch
 * below). Routes match in order (method + URL substring, RegExp or test); a `once` route is used
 * up by its first match. Every request is recorded.
 */

export interface DocRoute {
  method?: string;
  /** A part of the URL, a RegExp on it, or a test of it. */
  url: string | RegExp | ((url: string) => boolean);
  status?: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** Throw instead of answering (e.g. a time-out: new DOMException('…', 'TimeoutError')). */
  error?: Error;
  once?: boolean;
}

/** A reply of `on(method, path, ...replies)`: a body (JSON) with its status and headers, or an error to throw. */
export type DocReply = { status?: number; body: unknown; headers?: Record<string, string> } | Error;

/** A recorded request with its query (GET) or form (POST) parameters. */
export interface DocCall {
  method: string;
  url: URL;
  params: Record<string, string>;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
}

/** What the fake answers: a status, headers and body bytes. */
interface DocAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/**
 * The one network fake of the network tests, installed as undici's global dispatcher (`eachTest`
 * in a describe block): it answers every request on that dispatcher — the adapters' undici.request
 * and undici's fetch (media downloads in unit tests; Node's own fetch keeps its own dispatcher).
 * `fallback` answers requests no route matches (default: throw).
 */
export class DocFetch {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: DocRoute[] = [];
  private readonly dispatcher = new DocDispatcher((r) => this.handle(r));
  private previous: Dispatcher | null = null;

  constructor(private readonly fallback?: (method: string, url: string) => Omit<DocRoute, 'url'>) {}

  /**
   * A route; or replies by method + the path's end (or a RegExp on the path), used in turn, the
   * last one repeating.
   */
  on(route: DocRoute): this;
  on(method: string, path: string | RegExp, ...replies: DocReply[]): this;
  on(route: DocRoute | string, path?: string | RegExp, ...replies: DocReply[]): this {
    if (typeof route !== 'string') {
      this.routes.push(route);
      return this;
    }
    const method = route;
    const url = (u: string) => {
      const pathname = new URL(u).pathname;
      return typeof path === 'string' ? pathname.endsWith(path) : !!path?.test(pathname);
    };
    replies.forEach((reply, i) => {
      const once = i < replies.length - 1;
      this.routes.push(
        reply instanceof Error
          ? { method, url, error: reply, once }
          : { method, url, status: reply.status, json: reply.body, headers: reply.headers, once },
      );
    });
    return this;
  }

  /** The requests so far with their query (GET) or form (POST) parameters. */
  get calls(): DocCall[] {
    return this.requests.map((r) => {
      const url = new URL(r.url);
      const form = r.method === 'GET' ? url.searchParams : new URLSearchParams(String(r.body ?? ''));
      return { method: r.method, url, params: Object.fromEntries(form.entries()) };
    });
  }

  private install(): this {
    this.previous = getGlobalDispatcher();
    setGlobalDispatcher(this.dispatcher);
    return this;
  }

  private restore(): void {
    if (this.previous) setGlobalDispatcher(this.previous);
    this.previous = null;
  }

  /** Routes and requests cleared (a test's next step scripts the network afresh). */
  reset(): this {
    this.routes.length = 0;
    this.requests.length = 0;
    return this;
  }

  /**
   * For a describe block: installed as undici's global dispatcher around each of its tests, reset before each
   * and `setup` (routes every test needs) applied.
   */
  eachTest(setup: (net: this) => void = () => undefined): this {
    beforeEach(() => setup(this.reset().install()));
    afterEach(() => this.restore());
    return this;
  }

  /** Requests whose URL contains `part` (and whose method matches, when given). */
  find(part: string, method?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.url.includes(part) && (!method || r.method === method));
  }

  /** A recorded request's body parsed as JSON or as a form. */
  static body(r: RecordedRequest): Record<string, unknown> {
    const text = typeof r.body === 'string' ? r.body : '';
    if ((r.headers['content-type'] ?? '').includes('x-www-form-urlencoded'))
      return Object.fromEntries(new URLSearchParams(text));
    return JSON.parse(text) as Record<string, unknown>;
  }

  private async handle(request: RecordedRequest): Promise<DocAnswer> {
    const { method, url } = request;
    this.requests.push(request);
    const i = this.routes.findIndex(
      (r) =>
        (!r.method || r.method === method) &&
        (typeof r.url === 'string' ? url.includes(r.url) : typeof r.url === 'function' ? r.url(url) : r.url.test(url)),
    );
    if (i < 0 && !this.fallback) throw new Error(`DocFetch: no route for ${method} ${url}`);
    const route: Omit<DocRoute, 'url'> = i < 0 ? this.fallback!(method, url) : this.routes[i];
    if (route.once) this.routes.splice(i, 1);
    if (route.error) throw route.error;
    const text = route.text ?? (route.json === undefined ? '' : JSON.stringify(route.json));
    return {
      status: route.status ?? 200,
      headers: { ...(route.json !== undefined ? { 'content-type': 'application/json' } : {}), ...route.headers },
      body: new TextEncoder().encode(text),
    };
  }
}

/**
 * A Dispatcher answering each request with `answer` (its error fails the request), on the handler
 * callbacks both undici.request and undici's fetch give it.
 */
class DocDispatcher extends Dispatcher {
  constructor(private readonly answer: (request: RecordedRequest) => Promise<DocAnswer>) {
    super();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    let aborted = false;
    const fail = (err?: Error) => {
      if (!aborted) handler.onError?.(err ?? new Error('DocFetch: request aborted'));
      aborted = true;
    };
    handler.onConnect?.(fail);
    void recordedRequest(opts)
      .then(this.answer)
      .then(({ status, headers, body }) => {
        if (aborted) return;
        const raw = Object.entries(headers).flatMap(([name, value]) => [Buffer.from(name), Buffer.from(value)]);
        handler.onHeaders?.(status, raw, () => undefined, STATUS_CODES[status] ?? '');
        if (body.byteLength && !aborted) handler.onData?.(Buffer.from(body));
        if (!aborted) handler.onComplete?.([]);
      }, fail);
    return true;
  }

  override close(): Promise<void> {
    return Promise.resolve();
  }

  override destroy(): Promise<void> {
    return Promise.resolve();
  }
}

/** A dispatched request's URL (undici's options: origin and path). */
export function dispatchedUrl(opts: Dispatcher.DispatchOptions): string {
  return `${typeof opts.origin === 'string' ? opts.origin : (opts.origin?.origin ?? '')}${opts.path}`;
}

/** A dispatched request's headers, names lower-cased (undici's options: a record, or a flat or paired array). */
export function dispatchedHeaders(opts: Dispatcher.DispatchOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const add = (name: string, value: unknown) =>
    (headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value));
  const given = opts.headers as unknown;
  if (Array.isArray(given) && typeof given[0] === 'string')
    for (let i = 0; i < given.length; i += 2) add(String(given[i]), given[i + 1]);
  else if (Array.isArray(given)) for (const [name, value] of given as [string, unknown][]) add(name, value);
  else if (given && typeof given === 'object')
    for (const [name, value] of Object.entries(given)) if (value !== undefined) add(name, value);
  return headers;
}

/** A dispatched request as DocFetch records it: lower-case header names, the body as given (a stream's bytes). */
async function recordedRequest(opts: Dispatcher.DispatchOptions): Promise<RecordedRequest> {
  const body = opts.body;
  let read: string | Uint8Array | null;
  if (body === undefined || body === null) read = null;
  else if (typeof body === 'string' || body instanceof Uint8Array) read = body;
  else {
    const chunks: Uint8Array[] = [];
    for await (const chunk of body as AsyncIterable<Uint8Array | string>)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    read = new Uint8Array(Buffer.concat(chunks));
  }
  const method = (opts.method ?? 'GET').toUpperCase();
  return { method, url: dispatchedUrl(opts), headers: dispatchedHeaders(opts), body: read };
}

/** A DocFetch for the Graph adapters: an unscripted call answers Graph's error (400, code 100). */
export function graphFetch(): DocFetch {
  return new DocFetch((method, url) => ({
    status: 400,
    json: { error: { message: `no fake for ${method} ${new URL(url).pathname}`, code: 100 } },
  }));
}

/** The media download limits config defaults to (MEDIA_MAX_*_BYTES, MEDIA_DOWNLOAD_TIMEOUT_MS). */
const { maxImageBytes, maxVideoBytes, timeoutMs } = loadConfig({}).mediaDownloads;
const mediaLimits = { maxImageBytes, maxVideoBytes, timeoutMs };

/** Endpoints as the Graph adapters' tests build them (fake app credentials, short time-out). */
export const graphEndpoints = (apiBaseUrl: string, authBaseUrl: string) => ({
  apiBaseUrl,
  authBaseUrl,
  clientId: 'app-id',
  clientSecret: 'app-secret',
  timeoutMs: 5000,
  mediaLimits,
});

export const timeout = (): Error => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

/** Endpoints as the registry would build them for a real network (fake credentials, short time-out). */
export function testEndpoints<T extends { apiBaseUrl: string; authBaseUrl: string; uploadBaseUrl?: string }>(real: T) {
  return { ...real, clientId: 'client-id', clientSecret: 'client-secret', timeoutMs: 5000, mediaLimits };
}

/** The consent page an adapter sends a user to, for fixed state, redirect URI and PKCE challenge. */
export function consentPage(adapter: Pick<PlatformAdapter, 'authorizeUrl'>): URL {
  return new URL(adapter.authorizeUrl({ state: 's', redirectUri: 'https://app.example/cb', codeChallenge: 'c' }));
}

/** A spec's PublishContent: its defaults (`base`), overridden per test. */
export function contentOf(base: Partial<PublishContent>): (over?: Partial<PublishContent>) => PublishContent {
  return (over = {}) => ({
    contentType: 'text',
    text: '',
    link: null,
    imageUrls: [],
    videoUrl: null,
    options: {},
    ...base,
    ...over,
  });
}

/** A publish request for `account` whose saveState records each saved state in `saved`. */
export function recordingRequest(
  account: AccountCredentials,
  content: PublishContent,
  publishState: Record<string, unknown> = {},
): PublishRequest & { saved: Record<string, unknown>[] } {
  const saved: Record<string, unknown>[] = [];
  return {
    account,
    content,
    publishState,
    saveState: async (s) => {
      saved.push(s);
    },
    saved,
  };
}
