/** What an outbound HTTP call's failure without an answer was (undici's request, or fetch, which wraps it). */
export interface TransportFailure {
  /** The call's own time limit ended it (its AbortSignal.timeout, or an abort). */
  timedOut: boolean;
  /** undici gave up waiting itself (connecting, for the headers, for the body). */
  transportTimeout: boolean;
  /** The error's code (undici's, the system's), or its cause's when fetch wrapped it. */
  code: string | undefined;
  /** The message of what made it: the cause's when fetch wrapped it, else the error's own. */
  message: string;
}

const UNDICI_TIMEOUTS = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

type ErrorLike = { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };

/** `v` as an error's fields (read by shape: an Error of another realm, as Jest's, is no `instanceof Error`). */
const fieldsOf = (v: unknown): ErrorLike | undefined => (typeof v === 'object' && v !== null ? v : undefined);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The one reading of a failed call's error, for the callers that tell their users what happened. */
export function transportFailure(err: unknown): TransportFailure {
  const e = fieldsOf(err);
  const cause = fieldsOf(e?.cause);
  const code = text(e?.code) ?? text(cause?.code);
  return {
    timedOut: e?.name === 'TimeoutError' || e?.name === 'AbortError',
    transportTimeout: code !== undefined && UNDICI_TIMEOUTS.has(code),
    code,
    message: text(cause?.message) ?? text(e?.message) ?? String(err),
  };
}
