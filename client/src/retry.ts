import { parseRetryAfter } from './errors';

export interface RetryOptions {
  /** Retries after the first attempt (default 3). 0 disables retrying. */
  maxRetries?: number;
  /** First backoff delay when the answer names none (default 500 ms), doubled per attempt, with jitter. */
  baseDelayMs?: number;
  /** Cap of the computed backoff (default 30 s). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the answer is returned as is (default 60 s). */
  maxRetryAfterMs?: number;
  /** Called before each retry (logging, metrics). */
  onRetry?: (info: { attempt: number; delayMs: number; status?: number; error?: unknown; request: Request }) => void;
  /** For tests: how to wait. */
  sleep?: (ms: number) => Promise<void>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Wraps fetch with the service's retry rule: 429 and 5xx (and 409 `idempotency_key_in_use`) are
 * retried, honouring `Retry-After`, with the very same request — so a write keeps its
 * Idempotency-Key and runs at most once. Network failures are retried for reads and for writes
 * that carry an Idempotency-Key.
 */
export function withRetries(
  baseFetch: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
): (request: Request) => Promise<Response> {
  const maxRetries = options.maxRetries ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const sleep = options.sleep ?? defaultSleep;
  const backoff = (attempt: number): number =>
    Math.min(maxDelayMs, baseDelayMs * 2 ** attempt) * (0.5 + Math.random() / 2);

  return async (request: Request): Promise<Response> => {
    const replayable = !WRITES.has(request.method) || request.headers.has('idempotency-key');
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await baseFetch(request.clone());
      } catch (error) {
        if (attempt >= maxRetries || !replayable || request.signal.aborted) throw error;
        const delayMs = backoff(attempt);
        options.onRetry?.({ attempt: attempt + 1, delayMs, error, request });
        await sleep(delayMs);
        continue;
      }
      if (attempt >= maxRetries || !(await isRetryable(response))) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
      if (retryAfter !== undefined && retryAfter > maxRetryAfterMs) return response;
      const delayMs = retryAfter ?? backoff(attempt);
      await response.body?.cancel().catch(() => undefined);
      options.onRetry?.({ attempt: attempt + 1, delayMs, status: response.status, request });
      await sleep(delayMs);
    }
  };
}

async function isRetryable(response: Response): Promise<boolean> {
  if (response.status === 429 || (response.status >= 500 && response.status !== 501)) return true;
  if (response.status !== 409) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as { error?: { code?: string } } | undefined;
  return body?.error?.code === 'idempotency_key_in_use';
}
