import type { FetchFn } from '@/modules/networks/kit/http';
import { DocFetch } from './doc-fetch';

/**
 * The Graph adapters' tests' way to script DocFetch (the one fetch fake): canned bodies copied
 * from the networks' documentation by method + path (the path's end), the last reply of a route
 * repeating; an unscripted call answers Graph's error. `calls` lists requests with their query
 * (GET) or form (POST) parameters.
 */
export interface FakeCall {
  method: string;
  url: URL;
  params: Record<string, string>;
}

export type FakeReply = { status?: number; body: unknown; headers?: Record<string, string> } | Error;

export interface FakeFetch {
  fetch: FetchFn;
  readonly calls: FakeCall[];
  on(method: string, path: string | RegExp, ...replies: FakeReply[]): FakeFetch;
}

export function fakeFetch(): FakeFetch {
  const doc = new DocFetch((method, url) => ({
    status: 400,
    json: { error: { message: `no fake for ${method} ${new URL(url).pathname}`, code: 100 } },
  }));
  const fake: FakeFetch = {
    fetch: doc.fetch,
    get calls() {
      return doc.requests.map((r) => {
        const url = new URL(r.url);
        const form = r.method === 'GET' ? url.searchParams : new URLSearchParams(String(r.body ?? ''));
        return { method: r.method, url, params: Object.fromEntries(form.entries()) };
      });
    },
    on(method, path, ...replies) {
      const pathname = (u: string) => new URL(u).pathname;
      const url = (u: string) => (typeof path === 'string' ? pathname(u).endsWith(path) : path.test(pathname(u)));
      replies.forEach((reply, i) => {
        const once = i < replies.length - 1;
        doc.on(
          reply instanceof Error
            ? { method, url, error: reply, once }
            : { method, url, status: reply.status, json: reply.body, headers: reply.headers, once },
        );
      });
      return fake;
    },
  };
  return fake;
}

export const fakeEndpoints = (apiBaseUrl: string, authBaseUrl: string) => ({
  apiBaseUrl,
  authBaseUrl,
  clientId: 'app-id',
  clientSecret: 'app-secret',
  timeoutMs: 5000,
});

export { timeout as timeoutError } from './doc-fetch';
