import type { PlatformName } from '@/modules/networks/platform-name';
import type { Tenant, TestApp } from './test-app';
import { accountsOf } from './publishing';

/** An account connected through the sandbox's consent flow. */
export interface SandboxAccount {
  id: string;
  platform: PlatformName;
  platformAccountId: string;
}

/** Where the test's client app would receive people back (never fetched). */
export const CLIENT_RETURN_URL = 'https://client.example.com/connected';

export interface Hop {
  url: string;
  status: number;
  location: string | null;
}

export interface FlowEnd {
  /** The last URL reached: a page that answered without redirecting, or the client's return URL. */
  url: string;
  status: number;
  body: string;
  hops: Hop[];
}

export interface HtmlForm {
  action: string;
  /** Hidden inputs (name → value). */
  hidden: Record<string, string>;
  /** Values of the `accounts` checkboxes (the hosted page picker). */
  accounts: string[];
}

/**
 * The cookies of one browser (name → value, every host of the test alike, as the app and its
 * sandbox share one origin). Enough for the connect flow's browser binding.
 */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  /** The raw Set-Cookie lines received, in order. */
  readonly received: string[] = [];

  header(): string | undefined {
    return this.cookies.size ? [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      this.received.push(line);
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/;\s*max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** The cookies of "the test's browser", used when a call names no other jar. */
export const defaultJar = new CookieJar();

/**
 * Follows redirects with plain HTTP (no browser; cookies in `jar`, default: `defaultJar`), stopping at a
 * non-redirect answer or at `stopAt` (the client's return URL, which is not fetched).
 */
export async function follow(
  start: string,
  opts: { stopAt?: string; init?: RequestInit; maxHops?: number; jar?: CookieJar } = {},
): Promise<FlowEnd> {
  const hops: Hop[] = [];
  let url = start;
  let init: RequestInit = opts.init ?? {};
  for (let i = 0; i < (opts.maxHops ?? 20); i++) {
    if (opts.stopAt && url.startsWith(opts.stopAt)) return { url, status: 0, body: '', hops };
    const jar = opts.jar ?? defaultJar;
    const cookie = jar.header();
    const headers = new Headers(init.headers);
    if (cookie) headers.set('cookie', cookie);
    const res = await browserFetch(url, { ...init, headers, redirect: 'manual' });
    jar.take(res);
    const location = res.headers.get('location');
    hops.push({ url, status: res.status, location });
    if (res.status < 300 || res.status >= 400 || !location)
      return { url, status: res.status, body: await res.text(), hops };
    await res.arrayBuffer();
    url = new URL(location, url).toString();
    init = {};
  }
  throw new Error(`Too many redirects from ${start}: ${hops.map((h) => h.url).join(' → ')}`);
}

/**
 * fetch as a browser sends a request: when a reused keep-alive connection turns out closed by the
 * server (its idle time-out, 5 s in Node, ran out as the request went; ECONNRESET or "other side
 * closed" before any answer), the request is sent once more on a new connection.
 */
async function browserFetch(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (cause?.code !== 'ECONNRESET' && cause?.code !== 'UND_ERR_SOCKET') throw err;
    return fetch(url, init);
  }
}

/** The first POST form of a page: the sandbox consent page or the hosted page picker. */
export function parseForm(html: string, pageUrl: string): HtmlForm | null {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) return null;
  const hidden = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
      decodeEntities(m[1]),
      decodeEntities(m[2]),
    ]),
  );
  const accounts = [...html.matchAll(/name="accounts" value="([^"]+)"/g)].map((m) => decodeEntities(m[1]));
  return { action: new URL(decodeEntities(action), pageUrl).toString(), hidden, accounts };
}

/** Posts a form like a browser would: its hidden inputs plus `fields`. */
export async function submitForm(
  form: HtmlForm,
  fields: Record<string, string | string[]>,
  stopAt?: string,
  jar?: CookieJar,
): Promise<FlowEnd> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...form.hidden, ...fields }))
    for (const item of Array.isArray(v) ? v : [v]) body.append(k, item);
  return follow(form.action, {
    stopAt,
    jar,
    init: { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
  });
}

export interface ConnectedSession {
  sessionId: string;
  url: string;
  end: FlowEnd;
  /** Forms submitted on the way (sandbox consent, hosted picker); none under auto-consent. */
  forms: string[];
}

/**
 * Creates a session through the API and follows its `url` to the end with plain HTTP. A sandbox
 * consent page (SANDBOX_AUTO_CONSENT=false) is allowed; on the hosted page picker `pick` chooses
 * (default: the first account).
 */
export async function connectThroughSandbox(
  t: TestApp,
  tenant: Tenant,
  platform: PlatformName,
  opts: { redirectUrl?: string | null; profileId?: string; pick?: (accounts: string[]) => string[] } = {},
): Promise<ConnectedSession> {
  const redirectUrl = opts.redirectUrl === undefined ? CLIENT_RETURN_URL : opts.redirectUrl;
  const res = await t
    .http()
    .post('/v1/connect/sessions')
    .set(tenant.auth)
    .send({
      platform,
      ...(redirectUrl ? { redirectUrl } : {}),
      ...(opts.profileId ? { profileId: opts.profileId } : {}),
    });
  if (res.status !== 201)
    throw new Error(`POST /v1/connect/sessions answered ${res.status}: ${JSON.stringify(res.body)}`);
  const { id, url } = res.body as { id: string; url: string };
  const stopAt = redirectUrl ?? undefined;
  const forms: string[] = [];
  // One browser from start to end: the flow is bound to it by a cookie.
  const jar = new CookieJar();
  let end = await follow(url, { stopAt, jar });
  for (
    let form = parseForm(end.body, end.url);
    end.status === 200 && form && forms.length < 3;
    form = parseForm(end.body, end.url)
  ) {
    forms.push(new URL(form.action).pathname);
    end =
      form.accounts.length > 0
        ? await submitForm(
            form,
            { action: 'connect', accounts: (opts.pick ?? ((a) => a.slice(0, 1)))(form.accounts) },
            stopAt,
            jar,
          )
        : await submitForm(form, { decision: 'allow' }, stopAt, jar);
  }
  return { sessionId: id, url, end, forms };
}

function decodeEntities(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Connects one more sandbox account of `platform` through the API and returns it. */
export async function connectNewAccount(t: TestApp, tenant: Tenant, platform: PlatformName): Promise<SandboxAccount> {
  const before = new Set((await accountsOf(t, tenant.profileId)).map((a) => a.id));
  await connectThroughSandbox(t, tenant, platform);
  const added = (await accountsOf(t, tenant.profileId)).find((a) => !before.has(a.id));
  if (!added) throw new Error(`connecting ${platform} added no account`);
  return { id: added.id, platform: added.platform, platformAccountId: added.platformAccountId };
}
