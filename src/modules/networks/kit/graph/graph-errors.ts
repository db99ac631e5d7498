import type { ErrorCategory } from '../adapter';
import { PlatformError } from '../adapter';
import { isTransient, obj, type ReplyHeaders } from '../http';

/** Graph API error bodies → PlatformError (https://developers.facebook.com/docs/graph-api/guides/error-handling). */
interface GraphError {
  message: string;
  code?: number;
  error_subcode?: number;
  error_user_msg?: string;
  is_transient?: boolean;
}

/** Graph codes: single codes or [first, last] ranges. */
type Codes = (number | [number, number])[];
const has = (codes: Codes, n: number) => codes.some((c) => (typeof c === 'number' ? c === n : n >= c[0] && n <= c[1]));

const IG_MEDIA_SUBCODES = [
  2207003, 2207004, 2207005, 2207006, 2207009, 2207020, 2207023, 2207026, 2207028, 2207052, 2207057,
];
const IG_RETRY_SUBCODES = [2207001, 2207008, 2207027, 2207053, 2207032];

/** [category, codes, subcodes, or when the answer shows it]: the first row that matches wins; none = invalid_content. */
const GRAPH_CATEGORIES: [ErrorCategory, Codes, Codes, ((status: number, transient: boolean) => boolean)?][] = [
  // Token expired, revoked, password changed, app removed, checkpoint; 2xx: a permission is missing.
  ['auth_expired', [102, 190, 10, [200, 299]], [458, 459, 460, 463, 464, 467, 492]],
  // Throttling of the app, user, page or business use case; per-page feed limits; IG / Threads posts per 24 h.
  ['network_rate_limited', [4, 17, 32, 341, 613, [80001, 80014]], [2207042], (status) => status === 429],
  // Media download and format problems: FB photo 324, video 352 / 1363xxx, IG 2207xxx media subcodes.
  ['media_rejected', [324, 352, 6000], [[1363000, 1363999], ...IG_MEDIA_SUBCODES]],
  // Unknown and service errors, IG "try again" subcodes.
  ['network_error', [1, 2], IG_RETRY_SUBCODES, (status, transient) => transient || status >= 500],
  ['auth_expired', [], [], (status) => status === 401],
];

export function classifyGraphError(status: number, err: GraphError | null) {
  const [code, sub, transient] = [err?.code ?? 0, err?.error_subcode ?? 0, err?.is_transient === true];
  const row = GRAPH_CATEGORIES.find(
    ([, codes, subs, when]) => has(codes, code) || has(subs, sub) || when?.(status, transient),
  );
  const category = row?.[0] ?? 'invalid_content';
  return { category, retryable: isTransient(category) };
}

export function graphError(status: number, body: unknown, headers?: ReplyHeaders): PlatformError {
  const raw = obj(obj(body).error);
  const err = typeof raw.message === 'string' ? (raw as unknown as GraphError) : null;
  const { category, retryable } = classifyGraphError(status, err);
  // The user-facing message is added unless the message says it already.
  const userMsg = err?.error_user_msg && !err.message.includes(err.error_user_msg) ? ` ${err.error_user_msg}` : '';
  const message = err ? `${err.message}${userMsg}` : `The network answered HTTP ${status}.`;
  const networkCode =
    err?.code === undefined ? {} : { networkCode: err.error_subcode ? `${err.code}/${err.error_subcode}` : err.code };
  const retryAfterSeconds = category === 'network_rate_limited' ? retryAfterFrom(headers) : undefined;
  const retryAfter = retryAfterSeconds === undefined ? {} : { retryAfterSeconds };
  return new PlatformError(message, category, retryable, { status, ...networkCode, ...retryAfter });
}

/** `X-Business-Use-Case-Usage: {"<id>":[{"estimated_time_to_regain_access": <minutes>, …}]}` → seconds. */
export function retryAfterFrom(headers?: ReplyHeaders): number | undefined {
  const raw = headers?.get('x-business-use-case-usage');
  if (!raw) return undefined;
  try {
    const usage = JSON.parse(raw) as Record<string, { estimated_time_to_regain_access?: number }[]>;
    const entries = Object.values(usage).flat();
    const minutes = Math.max(0, ...entries.map((u) => u.estimated_time_to_regain_access ?? 0));
    return minutes > 0 ? minutes * 60 : undefined;
  } catch {
    return undefined;
  }
}
