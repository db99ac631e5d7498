import { Agent, fetch as undiciFetch } from 'undici';
import type { AppConfig } from '@/config/config';
import { ssrfSafeConnector } from '@/common/http/ssrf-safe-agent';
import { transportFailure } from '@/common/http/transport-failure';
import { type AdapterEndpoints, PlatformError } from './adapter';

/** Private and loopback media hosts: only with the sandbox on (its sample media) or MEDIA_ALLOW_PRIVATE_URLS=true. */
export function mediaAllowsPrivateUrls(config: Pick<AppConfig, 'sandbox' | 'mediaDownloads'>): boolean {
  return config.sandbox.enabled || config.mediaDownloads.allowPrivateUrls;
}

/** undici's fetch over an Agent whose every connection (redirects included) is checked by the SSRF-safe connector. */
export class SafeMediaFetch {
  private readonly dispatcher: Agent;

  constructor(allowPrivate: boolean) {
    this.dispatcher = new Agent({ connect: ssrfSafeConnector(allowPrivate, 10_000), keepAliveTimeout: 4_000 });
  }

  readonly fetch: MediaFetch = (url, init) => undiciFetch(url, { signal: init.signal, dispatcher: this.dispatcher });

  async close(): Promise<void> {
    await this.dispatcher.destroy().catch(() => undefined);
  }
}

/** What a media download reads of a response (global fetch's and undici's both fit). */
type MediaResponse = Pick<Response, 'status' | 'ok' | 'headers'> & { body: ReadableStream<Uint8Array> | null };
export type MediaFetch = (url: string, init: { signal: AbortSignal }) => Promise<MediaResponse>;

/** The moment all of one target's media must be downloaded by (MEDIA_DOWNLOAD_TIMEOUT_MS from now). */
export function mediaDeadline(endpoints: Pick<AdapterEndpoints, 'mediaLimits'>): number {
  return Date.now() + endpoints.mediaLimits.timeoutMs;
}

/**
 * A post's media, for a network that does not pull URLs; never holds more than the cap in memory. A 5xx or transport
 * failure is retryable; a 4xx, a body over the cap, a download past its deadline or a non-http(s) URL rejects.
 */
export async function downloadMedia(
  endpoints: Pick<AdapterEndpoints, 'fetchMedia' | 'mediaLimits'>,
  url: string,
  kind: 'image' | 'video',
  deadline = mediaDeadline(endpoints),
): Promise<{ bytes: Uint8Array; contentType: string }> {
  const protocol = URL.canParse(url) ? new URL(url).protocol : null;
  if (protocol !== 'http:' && protocol !== 'https:')
    throw new PlatformError(`The media URL ${url} is not an http(s) URL.`, 'media_rejected', false);
  const limits = endpoints.mediaLimits;
  const cap = kind === 'video' ? limits.maxVideoBytes : limits.maxImageBytes;
  const rejected = (why: string, details = {}) =>
    new PlatformError(`The media at ${url} ${why}.`, 'media_rejected', false, details);
  const failed = (why: string, details = {}) =>
    new PlatformError(`Could not download the media at ${url}: ${why}.`, 'network_error', true, details);
  const fetchMedia = endpoints.fetchMedia ?? ((u: string, init: { signal: AbortSignal }) => undiciFetch(u, init));
  const signal = AbortSignal.timeout(Math.max(1, deadline - Date.now()));
  let res: MediaResponse | undefined;
  try {
    res = await fetchMedia(url, { signal });
    if (res.status >= 500) throw failed(`HTTP ${res.status}`, { status: res.status });
    if (!res.ok) throw rejected(`could not be downloaded: HTTP ${res.status}`, { status: res.status });
    const tooLarge = () => rejected(`is larger than the ${kind} limit of ${cap} bytes`);
    if (Number(res.headers.get('content-length') ?? 0) > cap) throw tooLarge();
    const bytes = await readCapped(res.body, cap, tooLarge);
    if (bytes.byteLength === 0) throw rejected('is empty');
    return { bytes, contentType: res.headers.get('content-type')?.split(';')[0]?.trim() || 'application/octet-stream' };
  } catch (err) {
    await res?.body?.cancel().catch(() => undefined);
    if (err instanceof PlatformError) throw err;
    if (blockedAddress(err)) throw rejected('is on a private or local address, which is not allowed');
    if (signal.aborted) throw rejected(`did not download within the time limit of ${limits.timeoutMs} ms`);
    throw failed(transportFailure(err).message);
  }
}

/** Reads a body into one buffer, giving up (with `tooLarge()`) as soon as it passes `cap` bytes. */
async function readCapped(body: MediaResponse['body'], cap: number, tooLarge: () => Error): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body ?? []) {
    size += chunk.byteLength;
    if (size > cap) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The SSRF guard's refusal (BlockedAddressError, code ERR_SSRF_BLOCKED), however deep fetch wrapped it. */
function blockedAddress(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 'ERR_SSRF_BLOCKED') return true;
  }
  return false;
}
