import type { FetchFn } from '@/modules/networks/kit/graph/graph-client';

/**
 * A tiny stand-in for fetch, ONLY for doc-body unit tests of adapters: answers canned bodies
 * (copied from the networks' documentation) by method + path, and records every call.
 */
export interface FakeCall {
  method: string;
  url: URL;
  /** Query params (GET) or form fields (POST). */
  params: Record<string, string>;
}

export type FakeReply = { status?: number; body: unknown; headers?: Record<string, string> } | Error;

export interface FakeFetch {
  fetch: FetchFn;
  calls: FakeCall[];
  /** Replies are used in order for a route; the last one repeats. */
  on(method: string, path: string | RegExp, ...replies: FakeReply[]): FakeFetch;
}

export function fakeFetch(): FakeFetch {
  const routes: { method: string; path: string | RegExp; replies: FakeReply[] }[] = [];
  const calls: FakeCall[] = [];
  const fake: FakeFetch = {
    calls,
    on(method, path, ...replies) {
      routes.push({ method, path, replies });
      return fake;
    },
    fetch: async (input, init) => {
      const url = new URL(input);
      const method = init.method ?? 'GET';
      const params = Object.fromEntries(
        (method === 'GET' ? url.searchParams : new URLSearchParams(String(init.body ?? ''))).entries(),
      );
      calls.push({ method, url, params });
      const route = routes.find(
        (r) =>
          r.method === method &&
          (typeof r.path === 'string' ? url.pathname.endsWith(r.path) : r.path.test(url.pathname)),
      );
      if (!route)
        return new Response(
          JSON.stringify({ error: { message: `no fake for ${method} ${url.pathname}`, code: 100 } }),
          { status: 400 },
        );
      const reply = route.replies.length > 1 ? route.replies.shift()! : route.replies[0];
      if (reply instanceof Error) throw reply;
      return new Response(JSON.stringify(reply.body), {
        status: reply.status ?? 200,
        headers: { 'content-type': 'application/json', ...reply.headers },
      });
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

/** What fetch throws when AbortSignal.timeout fires. */
export function timeoutError(): Error {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}
