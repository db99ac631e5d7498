import { Body, Get, Post, Query, Req, type Type } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { SandboxAuth, type SandboxAuthSpec } from './sandbox-auth';
import { MagicErrors, SANDBOX_RATE_LIMIT_SECONDS } from './magic-words';
import { addOwnComment, commentRefusal, ownComments } from './sandbox-comments';
import { SandboxController, SandboxHttpError } from './sandbox-http';
import type { SandboxLogin } from './sandbox-login';
import { OAuthFailure, SandboxOAuth, SandboxOAuthError, TokenInfo } from './sandbox-oauth';
import { SandboxStore } from './sandbox-store';
import { AppConfig } from '@/config/config';
import type { Q } from './sandbox-request';
import { addDays } from '../days';
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

/** Rethrows a kit OAuth failure as Graph's error. */
export function oauthFail(err: unknown): never {
  throw err instanceof SandboxOAuthError ? graphOAuthError(err.reason, err.message) : err;
}

/** How a Graph network authenticates a call: `access_token` (form, query) or a bearer header; Graph's errors. */
export function graphAuth(network: string): SandboxAuthSpec {
  return { network, accessTokenParam: true, fail: graphOAuthError };
}

/** `@SandboxToken('facebook') info: TokenInfo`: a Graph call's verified token. */
export const SandboxToken = (network: string): ParameterDecorator => SandboxAuth(graphAuth(network));

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
 * Facebook Login (Facebook, Instagram): the OAuth dialog and GET oauth/access_token, where a code
 * gives a short-lived user token (1 h) and grant_type=fb_exchange_token a long-lived one. `prefixes` start the tokens.
 */
export function facebookLogin(
  network: string,
  appLabel: string,
  version: string,
  prefixes: { short: string; long: string },
): SandboxLogin {
  const answer = async (oauth: SandboxOAuth, q: Q): Promise<GraphToken> => {
    if (!q.client_id || !q.client_secret)
      throw graphFail('Missing client_id or client_secret parameter.', { code: 101 });
    if (q.grant_type === 'fb_exchange_token') return longLivedToken(oauth, network, q.fb_exchange_token, prefixes.long);
    const code = { code: q.code ?? '', clientId: q.client_id, redirectUri: q.redirect_uri ?? '' };
    const grant = await oauth.redeemCode(network, { ...code, codeVerifier: q.code_verifier }).catch(oauthFail);
    const t = await oauth.issueTokens(grant, { accessTtlSeconds: 3600, prefix: prefixes.short });
    return { access_token: t.accessToken, token_type: 'bearer', expires_in: 3600 };
  };
  return {
    network,
    appLabel,
    authorize: `${version}/dialog/oauth`,
    tokens: [{ method: 'GET', path: `${version}/oauth/access_token`, answer }],
  };
}

/** Graph `since`/`until` (unix seconds or a date) → YYYY-MM-DD (UTC). */
export function graphDate(v: string | undefined, fallback: Date): string {
  if (!v) return fallback.toISOString().slice(0, 10);
  const n = Number(v);
  return (Number.isFinite(n) ? new Date(n * 1000) : new Date(v)).toISOString().slice(0, 10);
}

/** The days a Graph insights call covers (`until` exclusive); by default `days` days before `until`. */
export function graphDays(
  since: string | undefined,
  until: string | undefined,
  defaults: { until: Date; days: number },
): string[] {
  const to = addDays(graphDate(until, defaults.until), -1);
  return dateRange(graphDate(since, new Date(`${addDays(to, 1 - defaults.days)}T00:00:00Z`)), to);
}

/** A period=day insights series (a week before today by default); end_time = next day 08:00 UTC. */
export function dailyInsights(
  accountId: string,
  metrics: Record<string, (m: ReturnType<typeof dailyAccountMetrics>) => number>,
  since: string | undefined,
  until: string | undefined,
): { name: string; period: string; values: { value: number; end_time: string }[]; title: string; id: string }[] {
  const days = graphDays(since, until, { until: new Date(), days: 7 }).slice(0, 93);
  return Object.entries(metrics).map(([name, pick]) => ({
    name,
    period: 'day',
    title: name,
    id: `${accountId}/insights/${name}/day`,
    values: days.map((d) => ({
      value: pick(dailyAccountMetrics(accountId, d)),
      end_time: `${addDays(d, 1)}T08:00:00+0000`,
    })),
  }));
}

/** An item's lifetime insights: the asked `names` that `values` has. */
export function lifetimeInsights(id: string, values: Record<string, number>, names: string[]): unknown[] {
  return names
    .filter((n) => n in values)
    .map((name) => ({
      name,
      period: 'lifetime',
      values: [{ value: values[name] }],
      title: name,
      id: `${id}/insights/${name}/lifetime`,
    }));
}

/** Graph's time format: 2026-03-01T10:00:00+0000 */
export function graphTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

export function numericId(): string {
  return `${Date.now()}${randomBytes(3).readUIntBE(0, 3).toString().padStart(8, '0')}`.slice(0, 17);
}

/** What a sandbox permalink opens: a tiny page showing the post (Graph's 404 when there is none). */
export function permalinkPage(
  network: string,
  post: { text: string; mediaUrls: string[]; time: string } | null,
): string {
  if (!post) throw graphFail("This content isn't available right now.", { code: 100, status: 404 });
  const esc = (v: string): string => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox ${esc(network)} post</title></head><body><main><h1>Sandbox ${esc(network)} post</h1><p>${esc(post.text)}</p>${post.mediaUrls.map((u) => `<p><a href="${esc(u)}">${esc(u)}</a></p>`).join('')}<p><small>${esc(post.time)}</small></p></main></body></html>`;
}

/** Graph's answer for an id that names nothing (Threads words it without the lead). */
export function graphNotFound(
  id: string,
  type = 'GraphMethodException',
  lead = 'Unsupported get request. ',
): SandboxHttpError {
  return graphFail(`${lead}Object with ID '${id}' does not exist.`, { code: 100, subcode: 33, type });
}

/**
 * The objects a sandbox user gets the first time it is seen (Facebook Pages, an Instagram
 * account, a Threads profile), each also stored by its id.
 */
export async function ownObjects<T extends { id: string }>(
  store: SandboxStore,
  network: string,
  userId: string,
  make: () => T[] | Promise<T[]>,
): Promise<T[]> {
  const existing = await store.get<T[]>([network, 'user', userId]);
  if (existing) return existing;
  const objects = await make();
  if (!(await store.putNew([network, 'user', userId], objects)))
    return (await store.get<T[]>([network, 'user', userId])) ?? [];
  for (const o of objects) await store.put([network, 'object', o.id], o);
  return objects;
}

/** The object `id` when the token's user owns it (Instagram accounts, Threads profiles); Graph's errors otherwise. */
export async function ownedObject<T extends { ownerUserId: string }>(
  store: SandboxStore,
  network: string,
  id: string,
  token: TokenInfo,
  type: string,
): Promise<T> {
  const object = await store.get<T>([network, 'object', id]);
  if (!object)
    throw graphFail(
      `Unsupported request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
      { code: 100, subcode: 33, type },
    );
  if (object.ownerUserId !== token.grant.userId)
    throw graphFail('(#10) Application does not have permission for this action', { code: 10, status: 403 });
  return object;
}

/** An item that takes comments: its id, when it was published, and who comments as its owner. */
export interface CommentedItem {
  id: string;
  publishedAt: string;
  author: { id: string; name: string };
}

/** How a Graph network (Facebook, Instagram) serves comments on its items. */
export interface GraphCommentsDialect {
  network: string;
  version: string;
  /** The route's :id item, when the call's token may read it (`write`: comment as its owner). */
  item: (write: boolean) => SandboxAuthSpec<CommentedItem>;
  render: (c: SandboxComment) => unknown;
  /** The error when a new comment's `message` is empty. */
  missing: string;
  /** The id a new comment gets (default: the kit's). */
  commentId?: (itemId: string) => string;
  /** Instagram also takes `message` from the query. */
  messageInQuery?: boolean;
}

/** GET …/:id/comments (generated, then the owner's own) and POST …/:id/comments (the owner comments). */
export function GraphCommentRoutes(d: GraphCommentsDialect): Type {
  const [read, write] = [d.item(false), d.item(true)];

  @SandboxController(d.network)
  class Comments {
    constructor(
      private readonly store: SandboxStore,
      private readonly config: AppConfig,
    ) {}

    /**
     * A page of the item's deterministic comments, each rendered by the network; cursors are base64
     * indexes and `paging.next` repeats the request with `after` replaced.
     */
    @Get(`${d.version}/:id/comments`)
    async list(
      @SandboxAuth(read) item: CommentedItem,
      @Req() req: Request,
    ): Promise<{ data: unknown[]; paging?: Record<string, unknown> }> {
      const q = req.query as { after?: string; limit?: string };
      // The generated comments, then the account's own (first comments).
      const own = await ownComments(this.store, d.network, item.id);
      const all = [...itemComments(item.id, new Date(item.publishedAt).toISOString()), ...own];
      const start = q.after ? Number(Buffer.from(q.after, 'base64url').toString()) + 1 : 0;
      const size = Math.min(Math.max(Number(q.limit) || 25, 1), 100);
      const items = all.slice(start, start + size);
      const data = items.map(d.render);
      if (items.length === 0) return { data, paging: undefined };
      const cursor = (i: number): string => Buffer.from(String(i)).toString('base64url');
      const end = start + items.length - 1;
      const cursors = { before: cursor(start), after: cursor(Math.max(end, start)) };
      const next = new URL(req.originalUrl, this.config.publicBaseUrl);
      next.searchParams.set('after', cursors.after);
      return { data, paging: { cursors, ...(end < all.length - 1 ? { next: next.toString() } : {}) } };
    }

    /** The owner's comment on its own item: `d.missing` when `message` is empty; #sandbox-comment-fails refuses it. */
    @Post(`${d.version}/:id/comments`)
    async add(@SandboxAuth(write) item: CommentedItem, @Body() body: Q, @Query() q: Q): Promise<{ id: string }> {
      const message = body.message ?? (d.messageInQuery ? q.message : undefined) ?? '';
      // The id is drawn before the checks (a refused comment uses one up too).
      const id = d.commentId?.(item.id);
      if (!message.trim()) throw graphFail(d.missing, { code: 100 });
      const refused = commentRefusal(d.network, message);
      if (refused) throw graphFail(`(#100) ${refused}`, { code: 100 });
      const comment = await addOwnComment(this.store, d.network, item.id, item.author, message, id);
      return { id: comment.id };
    }
  }
  return Comments;
}
