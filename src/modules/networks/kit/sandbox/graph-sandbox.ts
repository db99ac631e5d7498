import { randomBytes } from 'node:crypto';
import type { SandboxAuthSpec } from './sandbox-auth';
import { type MagicErrors, type MagicFailure, SANDBOX_RATE_LIMIT_SECONDS } from './magic-words';
import { addOwnComment, commentRefusal, ownComments } from './sandbox-comments';
import { SandboxHttpError } from './sandbox-http';
import type { SandboxLogin } from './sandbox-login';
import { OAuthFailure, SandboxGrant, SandboxOAuth, SandboxOAuthError, TokenInfo } from './sandbox-oauth';
import type { SandboxKit } from './sandbox-state';
import { SandboxStore } from './sandbox-store';
import { pageSize, type Q } from './sandbox-request';
import { route, routesOf, type SandboxRoute } from './sandbox-routes';
import { addDays, dayOf, daysBetween } from '../days';
import { dailyAccountMetrics, itemComments, SandboxComment, type SandboxDailyMetrics } from './sandbox-metrics';

export interface GraphErrorSpec {
  status?: number;
  code: number;
  subcode?: number;
  type?: string;
  userTitle?: string;
  userMsg?: string;
  transient?: boolean;
  headers?: Record<string, string>;
}

/** An error in Graph's own body format: `{ error: { message, type, code, error_subcode, fbtrace_id } }`. */
export function graphFail(message: string, spec: GraphErrorSpec): SandboxHttpError {
  const error = {
    message,
    type: spec.type ?? 'OAuthException',
    code: spec.code,
    ...(spec.subcode ? { error_subcode: spec.subcode } : {}),
    ...(spec.transient !== undefined ? { is_transient: spec.transient } : {}),
    ...(spec.userTitle ? { error_user_title: spec.userTitle } : {}),
    ...(spec.userMsg ? { error_user_msg: spec.userMsg } : {}),
    fbtrace_id: randomBytes(8).toString('base64url'),
  };
  return new SandboxHttpError(spec.status ?? 400, { error }, spec.headers);
}

/** A Graph error as a table row: its message and fields; `{word}` in the texts is filled in when it is thrown. */
export type GraphErrorRow = readonly [message: string, spec: GraphErrorSpec];

/** The row's error (exception `type` unless the row names one), its `{word}`s replaced by `words`. */
export function graphRowFail([message, spec]: GraphErrorRow, words: Record<string, string> = {}, type?: string) {
  const fill = (t = '') => t.replace(/\{(\w+)\}/g, (w, k: string) => words[k] ?? w);
  return graphFail(fill(message), { type, ...spec, userTitle: fill(spec.userTitle), userMsg: fill(spec.userMsg) });
}

/** Graph's answer to a bad code or token, given the kit's words as `{m}`. */
const OAUTH_ERRORS: Record<OAuthFailure | 'missing_token', GraphErrorRow> = {
  missing_token: ['An active access token must be used to query information about the current user.', { code: 2500 }],
  expired_token: ['Error validating access token: {m}', { code: 190, subcode: 463 }],
  revoked_token: [
    'Error validating access token: The user has not authorized application.',
    { code: 190, subcode: 458 },
  ],
  invalid_token: ['Invalid OAuth access token - Cannot parse access token', { code: 190 }],
  invalid_client: ['Error validating application. Invalid application ID.', { code: 101 }],
  invalid_grant: ['Error validating verification code. {m}', { code: 100, subcode: 36008 }],
};

const usage = {
  sandbox: [{ type: 'pages', call_count: 100, estimated_time_to_regain_access: SANDBOX_RATE_LIMIT_SECONDS / 60 }],
};
/**
 * The Graph networks' answers to the magic words (Threads names its exception type THApiException).
 * The rate limit says when access returns in X-Business-Use-Case-Usage, as Graph does.
 */
const MAGIC_ROWS: Record<MagicFailure, GraphErrorRow> = {
  invalid_content: ['(#100) {m}', { code: 100, userTitle: 'Post rejected', userMsg: '{m}' }],
  auth_expired: [
    'Error validating access token: The session has been invalidated because the user changed their password. {m}',
    { code: 190, subcode: 460, type: 'OAuthException' },
  ],
  media_rejected: [
    "Media download has failed. The media URI doesn't meet our requirements. {m}",
    { code: 9004, subcode: 2207052 },
  ],
  rate_limited: [
    '(#4) Application request limit reached. {m}',
    { code: 4, headers: { 'X-Business-Use-Case-Usage': JSON.stringify(usage) } },
  ],
  transient: [
    'An unexpected error has occurred. Please retry your request later. {m}',
    { code: 2, status: 500, transient: true },
  ],
};

export function graphMagicErrors(type = 'OAuthException'): MagicErrors {
  const error = ([key, row]: [string, GraphErrorRow]) => [key, (m: string) => graphRowFail(row, { m }, type)];
  return Object.fromEntries(Object.entries(MAGIC_ROWS).map(error)) as MagicErrors;
}

/** Rethrows a kit OAuth failure as Graph's error. */
export function oauthFail(err: unknown): never {
  throw err instanceof SandboxOAuthError ? graphRowFail(OAUTH_ERRORS[err.reason], { m: err.message }) : err;
}

/** Graph's answer to a token request without the app's credentials. */
export const MISSING_CLIENT = () => graphFail('Missing client_id or client_secret parameter.', { code: 101 });

/** How a Graph network authenticates a call: `access_token` (form, query) or a bearer header; Graph's errors. */
export function graphAuth(network: string): SandboxAuthSpec {
  return { network, accessTokenParam: true, fail: (reason, m) => graphRowFail(OAUTH_ERRORS[reason], { m }) };
}

async function graphToken(oauth: SandboxOAuth, grant: SandboxGrant, ttl: number, prefix: string) {
  const t = await oauth.issueTokens(grant, { accessTtlSeconds: ttl, prefix });
  return { access_token: t.accessToken, token_type: 'bearer', expires_in: ttl };
}

/** A long-lived (60-day) token for the grant of a valid token (fb_exchange_token, th_exchange_token, th_refresh_token). */
export async function longLivedToken(oauth: SandboxOAuth, network: string, token: string | undefined, prefix: string) {
  const info = await oauth.verify(network, token).catch(oauthFail);
  return graphToken(oauth, info.grant, 60 * 24 * 3600, prefix);
}

/** Facebook Login (Facebook, Instagram): a code gives a short-lived (1 h) token, fb_exchange_token a long-lived one. */
export function facebookLogin(
  network: string,
  appLabel: string,
  version: string,
  prefixes: Record<'short' | 'long', string>,
): SandboxLogin {
  const answer = route<SandboxOAuth>(`GET ${version}/oauth/access_token`, null, async ({ q }, oauth) => {
    if (!q.client_id || !q.client_secret) throw MISSING_CLIENT();
    if (q.grant_type === 'fb_exchange_token') return longLivedToken(oauth, network, q.fb_exchange_token, prefixes.long);
    const grant = await oauth.redeemCode(network, q).catch(oauthFail);
    return graphToken(oauth, grant, 3600, prefixes.short);
  });
  return { network, appLabel, authorize: `${version}/dialog/oauth`, tokens: [answer] };
}

/** The days (YYYY-MM-DD, UTC) of a Graph insights call's `since`/`until` (unix seconds or dates; `until` exclusive). */
export function graphDays({ since, until }: Q, defaults: { until: number; days: number }): string[] {
  const day = (v: string): string => dayOf(Number.isFinite(Number(v)) ? Number(v) * 1000 : v);
  const to = addDays(until ? day(until) : dayOf(defaults.until), -1);
  return daysBetween(since ? day(since) : addDays(to, 1 - defaults.days), to);
}

/**
 * An account insights metric of a network, from the account's generated daily metrics: a daily
 * series when it has `endTime` (a value's end_time is the next day at that time, e.g. 'T08:00:00+0000'),
 * else one total over the days (the last day's value when `last`).
 */
export interface DayMetric {
  pick: (m: SandboxDailyMetrics) => number;
  endTime?: string;
  last?: boolean;
}

/** The account's period=day insights `names` (from `metrics`) over `dates`; `describe` adds Instagram's description. */
export function dayInsights(
  accountId: string,
  dates: string[],
  names: string[],
  metrics: Record<string, DayMetric>,
  describe = false,
): unknown[] {
  const days = dates.map((d) => dailyAccountMetrics(accountId, d));
  return names.map((name) => {
    const { pick, endTime, last } = metrics[name];
    const [id, head] = [`${accountId}/insights/${name}/day`, { name, period: 'day', title: name }];
    const daily = (m: SandboxDailyMetrics) => ({ value: pick(m), end_time: `${addDays(m.date, 1)}${endTime}` });
    if (endTime) return { ...head, id, values: days.map(daily) };
    const lastDay = days.at(-1);
    const value = last ? (lastDay ? pick(lastDay) : 0) : days.reduce((s, m) => s + pick(m), 0);
    return { ...head, ...(describe ? { description: name } : {}), total_value: { value }, id };
  });
}

/** An item's lifetime insights: the asked `names` that `values` has. */
export function lifetimeInsights(id: string, values: Record<string, number>, names: string[]): unknown[] {
  const insight = (name: string) => ({ name, period: 'lifetime', values: [{ value: values[name] }], title: name });
  return names.filter((n) => n in values).map((name) => ({ ...insight(name), id: `${id}/insights/${name}/lifetime` }));
}

/** Graph's time format: 2026-03-01T10:00:00+0000 */
export function graphTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

export function numericId(): string {
  return `${Date.now()}${randomBytes(3).readUIntBE(0, 3).toString().padStart(8, '0')}`.slice(0, 17);
}

/** What a sandbox permalink opens: a tiny page showing the post (Graph's 404 when there is none). */
export function permalinkPage(network: string, post: { text: string; mediaUrls: string[]; time: string } | null) {
  if (!post) throw graphFail("This content isn't available right now.", { code: 100, status: 404 });
  const esc = (v: string): string => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sandbox ${esc(network)} post</title></head><body><main><h1>Sandbox ${esc(network)} post</h1><p>${esc(post.text)}</p>${post.mediaUrls.map((u) => `<p><a href="${esc(u)}">${esc(u)}</a></p>`).join('')}<p><small>${esc(post.time)}</small></p></main></body></html>`;
}

/**
 * Graph's answer for an id that names nothing (`lead`: "Unsupported get request. ", none on Threads), or that the call
 * cannot reach (`unreachable`: a missing permission or operation is named as the other causes).
 */
export function graphNotFound(id: string, type: string, lead: string, unreachable = false) {
  const more = unreachable ? ', cannot be loaded due to missing permissions, or does not support this operation' : '';
  return graphFail(`${lead}Object with ID '${id}' does not exist${more}.`, { code: 100, subcode: 33, type });
}

/** The objects a sandbox user gets on first sight (Facebook Pages, an Instagram account…), each also stored by id. */
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

/**
 * A Graph network's profile of each sandbox user (an Instagram account, a Threads profile): `of` a grant's user,
 * made on first sight (`make` gets the user id's last four characters as a `suffix` for its names), and `owned`:
 * the profile with that `id` when the token's user owns it (otherwise Graph's errors, `type` their exception type).
 */
export function graphProfiles<T extends { id: string; ownerUserId: string }>(
  network: string,
  type: string,
  make: (grant: SandboxGrant, suffix: string) => T,
) {
  return {
    of: async (store: SandboxStore, grant: SandboxGrant): Promise<T> =>
      (await ownObjects(store, network, grant.userId, () => [make(grant, grant.userId.slice(-4))]))[0],
    owned: async (store: SandboxStore, id: string, token: TokenInfo): Promise<T> => {
      const object = await store.get<T>([network, 'object', id]);
      if (!object) throw graphNotFound(id, type, 'Unsupported request. ', true);
      if (object.ownerUserId !== token.grant.userId)
        throw graphFail('(#10) Application does not have permission for this action', { code: 10, status: 403 });
      return object;
    },
  };
}

interface CommentedItem {
  id: string;
  publishedAt: string;
  author: { id: string; name: string };
}

/** How a Graph network (Facebook, Instagram) serves comments on its items. */
export interface GraphCommentsDialect {
  network: string;
  version: string;
  /** The item `id`: when it was published and its owner's id (null when there is none). */
  find: (store: SandboxStore, id: string) => Promise<{ publishedAt: string; ownerId: string } | null>;
  /** Who comments as the owner, when the token may read its items (`write`: comment as it); Graph's errors otherwise. */
  author: (store: SandboxStore, ownerId: string, token: TokenInfo, write: boolean) => Promise<CommentedItem['author']>;
  render: (c: SandboxComment) => unknown;
  /** The error when a new comment's `message` is empty. */
  missing: string;
  /** The id a new comment gets (default: the kit's). */
  commentId?: (itemId: string) => string;
  /** Instagram also takes `message` from the query. */
  messageInQuery?: boolean;
}

/** GET …/:id/comments (generated, then the owner's own) and POST …/:id/comments (the owner comments). */
export function graphCommentRoutes(d: GraphCommentsDialect): SandboxRoute<SandboxKit>[] {
  const route = routesOf<SandboxKit>();
  /** The route's :id item, when the call's token may read it (`write`: comment as its owner). */
  const item = (write: boolean): SandboxAuthSpec<CommentedItem> => ({
    ...graphAuth(d.network),
    caller: async (info, { req, store }) => {
      const id = req.params.id as string;
      const found = await d.find(store, id);
      if (!found) throw graphNotFound(id, 'GraphMethodException', `Unsupported ${req.method.toLowerCase()} request. `);
      return { id, publishedAt: found.publishedAt, author: await d.author(store, found.ownerId, info, write) };
    },
  });
  return [
    /** A page of the item's comments (generated, then the owner's own); cursors are base64 indexes. */
    route(`GET ${d.version}/:id/comments`, item(false), async ({ q, req, caller: item }, sim) => {
      const generated = itemComments(item.id, new Date(item.publishedAt).toISOString());
      const all = [...generated, ...(await ownComments(sim.store, d.network, item.id))];
      const start = q.after ? Number(Buffer.from(q.after, 'base64url').toString()) + 1 : 0;
      const size = pageSize(q.limit, 25, 100);
      const items = all.slice(start, start + size);
      const data = items.map(d.render);
      if (items.length === 0) return { data };
      const cursor = (i: number): string => Buffer.from(String(i)).toString('base64url');
      const end = start + items.length - 1;
      const cursors = { before: cursor(start), after: cursor(end) };
      const next = new URL(req.originalUrl, sim.config.publicBaseUrl);
      next.searchParams.set('after', cursors.after);
      return { data, paging: { cursors, ...(end < all.length - 1 ? { next: next.toString() } : {}) } };
    }),
    route({ at: `POST ${d.version}/:id/comments`, status: 201 }, item(true), async ({ q, body, caller: item }, sim) => {
      const message = body.message ?? (d.messageInQuery ? q.message : undefined) ?? '';
      // The id is drawn before the checks (a refused comment uses one up too).
      const id = d.commentId?.(item.id);
      if (!message.trim()) throw graphFail(d.missing, { code: 100 });
      const refused = commentRefusal(d.network, message);
      if (refused) throw graphFail(`(#100) ${refused}`, { code: 100 });
      const comment = await addOwnComment(sim.store, d.network, item.id, item.author, message, id);
      return { id: comment.id };
    }),
  ];
}
