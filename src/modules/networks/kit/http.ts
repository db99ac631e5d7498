import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { transportFailure } from '@/common/http/transport-failure';
import { ErrorCategory, PlatformError } from './adapter';
import { beforeNetworkCall, publishRunHeaders } from './publish-run';

/** Causes that prove the request never reached the network (safe to resend). */
const NOT_SENT = new Set(
  'ECONNREFUSED ENOTFOUND EAI_AGAIN ENETUNREACH EHOSTUNREACH UND_ERR_CONNECT_TIMEOUT'.split(' '),
);

interface NetworkCall {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** The body: JSON or form-encoded (each sets its Content-Type), or raw bytes (media uploads). */
  json?: unknown;
  form?: Record<string, string>;
  bytes?: Uint8Array;
  timeoutMs: number;
  /** This call creates the item on the network: a time-out or lost connection is an unknown outcome. */
  creates?: boolean;
  /** Statuses the caller handles itself (e.g. 308 of a resumable upload). */
  accept?: number[];
}

/** A reply's headers, by case-insensitive name (repeated ones joined by ", "), read as fetch's Headers are. */
export type ReplyHeaders = Pick<Headers, 'get'>;

export interface NetworkReply {
  status: number;
  headers: ReplyHeaders;
  text: string;
  /** Parsed JSON body, or null when the body is empty or not JSON. */
  json: unknown;
}

type ErrorMapper = (reply: NetworkReply) => PlatformError;

/** The adapters' one HTTP client: a creating call timed out or cut after sending is an `unknown_outcome`. */
export async function callNetwork(call: NetworkCall, mapError: ErrorMapper): Promise<NetworkReply> {
  await beforeNetworkCall();
  const headers: Record<string, string> = { ...call.headers, ...publishRunHeaders(call.url) };
  const isJson = call.json !== undefined;
  const body = isJson ? JSON.stringify(call.json) : call.form ? new URLSearchParams(call.form).toString() : call.bytes;
  const type = isJson ? 'application/json' : call.form ? 'application/x-www-form-urlencoded' : undefined;
  if (type) headers['Content-Type'] ??= type;
  let reply: NetworkReply;
  try {
    // undici's global dispatcher (tests fake the networks there); like fetch's `redirect: 'manual'`, no redirect followed.
    const res = await request(call.url, {
      method: call.method ?? 'GET',
      headers,
      body,
      signal: AbortSignal.timeout(call.timeoutMs),
    });
    const text = await res.body.text();
    reply = { status: res.statusCode, headers: replyHeaders(res.headers), text, json: parseJson(text) };
  } catch (err) {
    throw transportError(err, call);
  }
  const ok = (reply.status >= 200 && reply.status < 300) || (call.accept ?? []).includes(reply.status);
  if (!ok) throw mapError(reply);
  return reply;
}

function replyHeaders(raw: Record<string, string | string[] | undefined>): ReplyHeaders {
  return {
    get: (name) => {
      const v = raw[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
  };
}

export type ApiCall = Omit<NetworkCall, 'url' | 'timeoutMs'>;

/** A network's API on callNetwork: base URL, fixed headers, error mapper, bearer token; absolute URLs as they are. */
export class NetworkApi {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
    private readonly mapError: ErrorMapper,
    private readonly headers: Record<string, string> = {},
  ) {}

  call(token: string | null, path: string, call: ApiCall = {}): Promise<NetworkReply> {
    const url = /^https?:\/\//.test(path) ? path : `${this.baseUrl}${path}`;
    const headers = { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...this.headers, ...call.headers };
    return callNetwork({ ...call, url, headers, timeoutMs: this.timeoutMs }, this.mapError);
  }

  async json(token: string | null, path: string, call: ApiCall = {}): Promise<Json> {
    return obj((await this.call(token, path, call)).json);
  }

  post(token: string | null, path: string, body: unknown, call: ApiCall = {}): Promise<Json> {
    return this.json(token, path, { ...call, method: 'POST', json: body });
  }
}

/** A network's own codes by our category, space-separated (a Map: a code named `constructor` inherits nothing). */
export function categoryTable(codes: { [C in ErrorCategory]?: string }): ReadonlyMap<string, ErrorCategory> {
  const byCategory = Object.entries(codes) as [ErrorCategory, string][];
  const words = (list: string) => list.trim().split(/\s+/);
  return new Map(byCategory.flatMap(([category, list]) => words(list).map((code) => [code, category] as const)));
}

/** A failed answer's error: the network code's `category`, else by 5xx/429/401, else `otherwise` (invalid content). */
export function answerError(
  message: string,
  a: { status: number; networkCode?: string | number; category?: ErrorCategory; otherwise?: ErrorCategory },
  headers?: ReplyHeaders,
): PlatformError {
  const byStatus = a.status >= 500 ? 'network_error' : STATUS_CATEGORY[a.status];
  const category = a.category ?? byStatus ?? a.otherwise ?? 'invalid_content';
  const details = { status: a.status, networkCode: a.networkCode };
  const withRetry = headers ? { ...details, retryAfterSeconds: retryAfterSeconds(headers) } : details;
  return new PlatformError(message, category, isTransient(category), withRetry);
}

const STATUS_CATEGORY: Partial<Record<number, ErrorCategory>> = { 429: 'network_rate_limited', 401: 'auth_expired' };

/** `call`'s answer, or `instead` when it fails with a PlatformError that `refused` accepts (others are thrown). */
export function orIfRefused<T, U>(call: Promise<T>, refused: (err: PlatformError) => boolean, instead: U) {
  return call.catch((err: unknown) => {
    if (err instanceof PlatformError && refused(err)) return instead;
    throw err;
  });
}

export const isTransient = (category: ErrorCategory): boolean =>
  category === 'network_error' || category === 'network_rate_limited';

function transportError(err: unknown, call: NetworkCall): PlatformError {
  const { timedOut, code, message } = transportFailure(err);
  const what = timedOut ? `timed out after ${call.timeoutMs} ms` : `failed (${message})`;
  const host = URL.canParse(call.url) ? new URL(call.url).host : 'the network';
  if (call.creates && !(code && NOT_SENT.has(code))) {
    const maybe = `The request to ${host} ${what}; the item may or may not have been published.`;
    return new PlatformError(maybe, 'unknown_outcome', false);
  }
  return new PlatformError(`The request to ${host} ${what}.`, 'network_error', true);
}

function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Seconds from a Retry-After header (delta-seconds or HTTP date). */
function retryAfterSeconds(headers: ReplyHeaders): number | undefined {
  const v = headers.get('retry-after');
  if (!v) return undefined;
  const seconds = Number.isFinite(Number(v)) ? Number(v) : (Date.parse(v) - Date.now()) / 1000;
  return Number.isNaN(seconds) ? undefined : Math.max(0, Math.round(seconds));
}

export type Json = Record<string, unknown>;

export const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

export function num(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : 0;
}

/**
 * A value the answer must hold. Missing, it is a retryable network_error; after a creating call (`created`) the item
 * may exist all the same, so it is a non-retryable unknown_outcome.
 */
export function needed(value: string | null | undefined, missing: string, created = false): string {
  if (value) return value;
  throw new PlatformError(missing, created ? 'unknown_outcome' : 'network_error', !created);
}

/** Asks `check` now and after each of `delaysMs` until it answers (not undefined); undefined if it never does. */
export async function pollUntil<T>(delaysMs: number[], check: () => Promise<T | undefined>): Promise<T | undefined> {
  for (const delay of [0, ...delaysMs]) {
    if (delay) await sleep(delay);
    const answer = await check();
    if (answer !== undefined) return answer;
  }
  return undefined;
}

export async function pollOrThrow<T>(delaysMs: number[], stillBusy: Error, check: () => Promise<T | undefined>) {
  const answer = await pollUntil(delaysMs, check);
  if (answer === undefined) throw stillBusy;
  return answer;
}
