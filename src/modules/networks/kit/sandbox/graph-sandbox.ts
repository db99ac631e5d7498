import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { SandboxAuth } from './sandbox-auth';
import { MagicErrors, SANDBOX_RATE_LIMIT_SECONDS } from './magic-words';
import { SandboxHttpError } from './sandbox-http';
import { OAuthFailure, SandboxOAuth, SandboxOAuthError } from './sandbox-oauth';
import { dailyAccountMetrics, dateRange, itemComments, SandboxComment } from './sandbox-metrics';

/** Helpers for the Graph-style simulators (Facebook, Instagram, Threads): errors, tokens, media, insights. */

export interface GraphErrorSpec {
  status?: number;
  code: number;
  subcode?: number;
  type?: string;
  userTitle?: string;
  userMsg?: string;
  transient?: boolean;
}

/** An error in Graph's own body format: `{ error: { message, type, code, error_subcode, fbtrace_id } }`. */
export function graphFail(message: string, spec: GraphErrorSpec): SandboxHttpError {
  return new SandboxHttpError(spec.status ?? 400, {
    error: {
      message,
      type: spec.type ?? 'OAuthException',
      code: spec.code,
      ...(spec.subcode ? { error_subcode: spec.subcode } : {}),
      ...(spec.transient !== undefined ? { is_transient: spec.transient } : {}),
      ...(spec.userTitle ? { error_user_title: spec.userTitle } : {}),
      ...(spec.userMsg ? { error_user_msg: spec.userMsg } : {}),
      fbtrace_id: randomBytes(8).toString('base64url'),
    },
  });
}

/** Graph's answer to a bad code or token. */
function graphOAuthError(reason: OAuthFailure | 'missing_token', message: string): SandboxHttpError {
  switch (reason) {
    case 'missing_token':
      return graphFail('An active access token must be used to query information about the current user.', {
        code: 2500,
      });
    case 'expired_token':
      return graphFail(`Error validating access token: ${message}`, { code: 190, subcode: 463 });
    case 'revoked_token':
      return graphFail('Error validating access token: The user has not authorized application.', {
        code: 190,
        subcode: 458,
      });
    case 'invalid_token':
      return graphFail('Invalid OAuth access token - Cannot parse access token', { code: 190 });
    case 'invalid_client':
      return graphFail('Error validating application. Invalid application ID.', { code: 101 });
    case 'invalid_grant':
      return graphFail(`Error validating verification code. ${message}`, { code: 100, subcode: 36008 });
    case 'invalid_request':
      return graphFail(message, { code: 100 });
  }
}

/** Rethrows a kit OAuth failure as Graph's error. */
/**
 * The Graph networks' answers to the magic words (Threads names its exception type THApiException).
 * The rate limit says when access returns in X-Business-Use-Case-Usage, as Graph does.
 */
export function graphMagicErrors(type = 'OAuthException'): MagicErrors {
  return {
    invalid_content: (m) => graphFail(`(#100) ${m}`, { code: 100, type, userTitle: 'Post rejected', userMsg: m }),
    auth_expired: (m) =>
      graphFail(
        `Error validating access token: The session has been invalidated because the user changed their password. ${m}`,
        { code: 190, subcode: 460 },
      ),
    media_rejected: (m) =>
      graphFail(`Media download has failed. The media URI doesn't meet our requirements. ${m}`, {
        code: 9004,
        subcode: 2207052,
        type,
      }),
    rate_limited: (m) => {
      const err = graphFail(`(#4) Application request limit reached. ${m}`, { code: 4, type });
      const usage = {
        sandbox: [{ type: 'pages', call_count: 100, estimated_time_to_regain_access: SANDBOX_RATE_LIMIT_SECONDS / 60 }],
      };
      return new SandboxHttpError(err.status, err.body, { 'X-Business-Use-Case-Usage': JSON.stringify(usage) });
    },
    transient: (m) =>
      graphFail(`An unexpected error has occurred. Please retry your request later. ${m}`, {
        code: 2,
        status: 500,
        transient: true,
        type,
      }),
  };
}

export function oauthFail(err: unknown): never {
  throw err instanceof SandboxOAuthError ? graphOAuthError(err.reason, err.message) : err;
}

/** `@SandboxToken('facebook') info: TokenInfo`: a Graph call's verified token (form, query or header). */
export const SandboxToken = (network: string): ParameterDecorator =>
  SandboxAuth({ network, accessTokenParam: true, fail: graphOAuthError });

const LONG_LIVED_SECONDS = 60 * 24 * 3600;

export interface GraphToken {
  access_token: string;
  token_type: string;
  expires_in: number;
}

/** A long-lived (60-day) token for the grant of a valid token (fb_exchange_token, th_exchange_token, th_refresh_token). */
export async function longLivedToken(
  oauth: SandboxOAuth,
  network: string,
  token: string | undefined,
  prefix: string,
): Promise<GraphToken> {
  const info = await oauth.verify(network, token).catch(oauthFail);
  const t = await oauth.issueTokens(info.grant, { accessTtlSeconds: LONG_LIVED_SECONDS, prefix });
  return { access_token: t.accessToken, token_type: 'bearer', expires_in: LONG_LIVED_SECONDS };
}

/**
 * Facebook Login's GET oauth/access_token (Facebook, Instagram): a code → a short-lived user
 * token (1 h); grant_type=fb_exchange_token → a long-lived one. `prefixes` start the tokens.
 */
export async function facebookLoginToken(
  oauth: SandboxOAuth,
  network: string,
  q: Record<string, string | undefined>,
  prefixes: { short: string; long: string },
): Promise<GraphToken> {
  if (!q.client_id || !q.client_secret) throw graphFail('Missing client_id or client_secret parameter.', { code: 101 });
  if (q.grant_type === 'fb_exchange_token') return longLivedToken(oauth, network, q.fb_exchange_token, prefixes.long);
  const grant = await oauth
    .redeemCode(network, {
      code: q.code ?? '',
      clientId: q.client_id,
      redirectUri: q.redirect_uri ?? '',
      codeVerifier: q.code_verifier,
    })
    .catch(oauthFail);
  const t = await oauth.issueTokens(grant, { accessTtlSeconds: 3600, prefix: prefixes.short });
  return { access_token: t.accessToken, token_type: 'bearer', expires_in: 3600 };
}

/** Graph `since`/`until` (unix seconds or a date) → YYYY-MM-DD (UTC). */
export function graphDate(v: string | undefined, fallback: Date): string {
  if (!v) return fallback.toISOString().slice(0, 10);
  const n = Number(v);
  return (Number.isFinite(n) ? new Date(n * 1000) : new Date(v)).toISOString().slice(0, 10);
}

/** A period=day insights series: `until` is exclusive, like Graph's; end_time = next day 08:00 UTC. */
export function dailyInsights(
  accountId: string,
  metrics: Record<string, (m: ReturnType<typeof dailyAccountMetrics>) => number>,
  since: string | undefined,
  until: string | undefined,
): { name: string; period: string; values: { value: number; end_time: string }[]; title: string; id: string }[] {
  const to = new Date(Date.parse(`${graphDate(until, new Date())}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  const from = graphDate(since, new Date(Date.parse(`${to}T00:00:00Z`) - 6 * 86_400_000));
  const days = dateRange(from, to).slice(0, 93);
  return Object.entries(metrics).map(([name, pick]) => ({
    name,
    period: 'day',
    title: name,
    id: `${accountId}/insights/${name}/day`,
    values: days.map((d) => ({
      value: pick(dailyAccountMetrics(accountId, d)),
      end_time: `${new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)}T08:00:00+0000`,
    })),
  }));
}

/** One page of an item's deterministic comments; cursors are base64 indexes. */
export function commentPage(
  itemId: string,
  publishedAt: string,
  after: string | undefined,
  limit: string | undefined,
): { items: SandboxComment[]; before: string; after: string; hasNext: boolean } {
  const all = itemComments(itemId, publishedAt);
  const start = after ? Number(Buffer.from(after, 'base64url').toString()) + 1 : 0;
  const size = Math.min(Math.max(Number(limit) || 25, 1), 100);
  const items = all.slice(start, start + size);
  const cursor = (i: number): string => Buffer.from(String(i)).toString('base64url');
  const end = start + items.length - 1;
  return { items, before: cursor(start), after: cursor(Math.max(end, start)), hasNext: end < all.length - 1 };
}

/** Graph's `paging` object; `next` repeats the request with `after` replaced. */
export function graphPaging(
  req: Request,
  publicBaseUrl: string,
  page: { before: string; after: string; hasNext: boolean; count: number },
): Record<string, unknown> | undefined {
  if (page.count === 0) return undefined;
  const next = new URL(req.originalUrl, publicBaseUrl);
  next.searchParams.set('after', page.after);
  return { cursors: { before: page.before, after: page.after }, ...(page.hasNext ? { next: next.toString() } : {}) };
}

export function numericId(): string {
  return `${Date.now()}${randomBytes(3).readUIntBE(0, 3).toString().padStart(8, '0')}`.slice(0, 17);
}

/** The tiny HTML page a sandbox permalink opens. */
export function permalinkPage(network: string, text: string, mediaUrls: string[], time: string): string {
  const esc = (v: string): string => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox ${esc(network)} post</title></head><body><main><h1>Sandbox ${esc(network)} post</h1><p>${esc(text)}</p>${mediaUrls.map((u) => `<p><a href="${esc(u)}">${esc(u)}</a></p>`).join('')}<p><small>${esc(time)}</small></p></main></body></html>`;
}
