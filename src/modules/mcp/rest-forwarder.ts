import type { CallToolResult } from '@modelcontextprotocol/server';

/** One REST call a tool makes on the caller's behalf. */
export interface RestCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: Record<string, unknown>;
  idempotencyKey?: string;
}

/** Who is calling and where the service itself answers (the loopback address of the listening server). */
export interface CallerContext {
  authorization: string;
  baseUrl: string;
}

const TIMEOUT_MS = 60_000;

/** Encodes one path segment; `.` and `..` would be resolved as dot segments, so they never reach a route. */
export function segment(value: string): string {
  return value === '.' || value === '..' ? encodeURIComponent(`${value}_`) : encodeURIComponent(value);
}

export function buildUrl(baseUrl: string, call: RestCall): string {
  const url = new URL(call.path, baseUrl);
  for (const [k, v] of Object.entries(call.query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url.toString();
}

/**
 * Tools do not re-implement the API: each one is the service's own REST endpoint called over
 * loopback with the caller's key, so permission checks, error codes, rate limits and
 * idempotency are exactly those of REST.
 */
export async function forwardToRest(caller: CallerContext, call: RestCall): Promise<CallToolResult> {
  const headers: Record<string, string> = {
    authorization: caller.authorization,
    accept: 'application/json',
    'user-agent': 'sps-mcp/1',
  };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
  let res: Response;
  try {
    res = await fetch(buildUrl(caller.baseUrl, call), {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    return toolError(
      { code: 'internal_error', message: `The service did not answer: ${(err as Error).message}`, requestId: null },
      500,
    );
  }
  return toToolResult(res.status, res.headers, await res.text());
}

interface EnvelopeError {
  code: string;
  message: string;
  requestId: string | null;
  docsUrl?: string;
  details?: unknown;
}

/** Maps a REST answer to a tool result: 2xx → the JSON as text; an error envelope → isError with code, message and request id. */
export function toToolResult(status: number, headers: Headers, text: string): CallToolResult {
  const parsed = parseJson(text);
  if (status >= 200 && status < 300) {
    return { content: [{ type: 'text', text: parsed === undefined ? text : JSON.stringify(parsed, null, 2) }] };
  }
  const requestId = headers.get('x-request-id');
  const envelope = (parsed as { error?: Partial<EnvelopeError> } | undefined)?.error;
  const error: EnvelopeError =
    envelope && typeof envelope === 'object' && typeof envelope.code === 'string'
      ? {
          code: envelope.code,
          message: typeof envelope.message === 'string' ? envelope.message : '',
          requestId: typeof envelope.requestId === 'string' ? envelope.requestId : requestId,
          docsUrl: envelope.docsUrl,
          details: envelope.details,
        }
      : {
          code: status >= 500 ? 'internal_error' : 'invalid_request',
          message: `Unexpected HTTP ${status} from the service.`,
          requestId,
        };
  const retryAfter = headers.get('retry-after');
  return toolError(error, status, retryAfter === null ? undefined : Number(retryAfter));
}

function toolError(error: EnvelopeError, status: number, retryAfterSeconds?: number): CallToolResult {
  const summary = `${error.code}: ${error.message} (requestId: ${error.requestId ?? 'none'})`;
  const payload: Record<string, unknown> = { error: stripUndefined({ ...error }), status };
  if (retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds))
    payload.retryAfterSeconds = retryAfterSeconds;
  return {
    isError: true,
    content: [
      { type: 'text', text: summary },
      { type: 'text', text: JSON.stringify(payload, null, 2) },
    ],
  };
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
