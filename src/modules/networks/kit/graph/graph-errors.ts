import type { ErrorCategory } from '../adapter';
import { PlatformError } from '../adapter';

/** Graph API error bodies → PlatformError (https://developers.facebook.com/docs/graph-api/guides/error-handling). */
export interface GraphErrorBody {
  error: { message: string; code?: number; error_subcode?: number; error_user_msg?: string; is_transient?: boolean };
}

export function isGraphErrorBody(body: unknown): body is GraphErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const e = body.error;
  return typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string';
}

/** Token expired, revoked, password changed, app removed, checkpoint. */
const AUTH_CODES = new Set([102, 190, 10]);
const AUTH_SUBCODES = new Set([458, 459, 460, 463, 464, 467, 492]);
/** Application, user, page and business-use-case throttling; per-page feed limits. */
const RATE_CODES = new Set([4, 17, 32, 341, 613]);
/** Instagram "max posts per 24 h" / Threads publishing limit. */
const RATE_SUBCODES = new Set([2207042]);
/** Transient: unknown / service errors, and IG "try again" subcodes. */
const TRANSIENT_CODES = new Set([1, 2]);
const TRANSIENT_SUBCODES = new Set([2207001, 2207008, 2207027, 2207053, 2207032]);
/** Media download and format problems: FB photo 324, video 352 / 1363xxx, IG 2207xxx media subcodes. */
const MEDIA_CODES = new Set([324, 352, 6000]);
const MEDIA_SUBCODES = new Set([
  2207003, 2207004, 2207005, 2207006, 2207009, 2207020, 2207023, 2207026, 2207028, 2207052, 2207057,
]);

export function classifyGraphError(
  status: number,
  err: GraphErrorBody['error'] | null,
): { category: ErrorCategory; retryable: boolean } {
  const code = err?.code ?? 0;
  const sub = err?.error_subcode ?? 0;
  if (AUTH_CODES.has(code) || AUTH_SUBCODES.has(sub) || (code >= 200 && code <= 299))
    return { category: 'auth_expired', retryable: false };
  if (RATE_CODES.has(code) || RATE_SUBCODES.has(sub) || (code >= 80001 && code <= 80014) || status === 429)
    return { category: 'network_rate_limited', retryable: true };
  if (MEDIA_CODES.has(code) || MEDIA_SUBCODES.has(sub) || (sub >= 1363000 && sub <= 1363999))
    return { category: 'media_rejected', retryable: false };
  if (TRANSIENT_CODES.has(code) || TRANSIENT_SUBCODES.has(sub) || err?.is_transient === true || status >= 500)
    return { category: 'network_error', retryable: true };
  if (status === 401) return { category: 'auth_expired', retryable: false };
  return { category: 'invalid_content', retryable: false };
}

/** Builds the PlatformError for a failed Graph call, keeping the network's own message. */
export function graphError(status: number, body: unknown, headers?: Headers): PlatformError {
  const err = isGraphErrorBody(body) ? body.error : null;
  const { category, retryable } = classifyGraphError(status, err);
  // The user-facing message is added unless the message says it already.
  const userMsg = err?.error_user_msg && !err.message.includes(err.error_user_msg) ? ` ${err.error_user_msg}` : '';
  const message = err ? `${err.message}${userMsg}` : `The network answered HTTP ${status}.`;
  const retryAfterSeconds = category === 'network_rate_limited' ? retryAfterFrom(headers) : undefined;
  return new PlatformError(message, category, retryable, {
    status,
    ...(err?.code !== undefined
      ? { networkCode: err.error_subcode ? `${err.code}/${err.error_subcode}` : err.code }
      : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
  });
}

/** `X-Business-Use-Case-Usage: {"<id>":[{"estimated_time_to_regain_access": <minutes>, …}]}` → seconds. */
export function retryAfterFrom(headers?: Headers): number | undefined {
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
