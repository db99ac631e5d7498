import { Agent, fetch as undiciFetch } from 'undici';
import type { AppConfig } from '@/config/config';
import { ssrfSafeConnector } from '@/common/http/ssrf-safe-agent';
import type { MediaFetch } from './adapter';

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Private and loopback media hosts are allowed only when the sandbox is on (it serves sample
 * media from this service, usually on localhost) or MEDIA_ALLOW_PRIVATE_URLS=true.
 */
export function mediaAllowsPrivateUrls(config: Pick<AppConfig, 'sandbox' | 'mediaDownloads'>): boolean {
  return config.sandbox.enabled || config.mediaDownloads.allowPrivateUrls;
}

/**
 * The fetch adapters download posts' media with: undici's fetch over an Agent whose every
 * connection (each redirect hop included) goes through the SSRF-safe connector of
 * src/common/http, which checks the resolved address at connect time. An agent of its own, not
 * the webhooks' SsrfSafeAgent: its allow rule and time-outs are the webhooks'.
 */
export class SafeMediaFetch {
  private readonly dispatcher: Agent;

  constructor(allowPrivate: boolean) {
    this.dispatcher = new Agent({
      connect: ssrfSafeConnector(allowPrivate, CONNECT_TIMEOUT_MS),
      keepAliveTimeout: 4_000,
    });
  }

  readonly fetch: MediaFetch = (url, init) => undiciFetch(url, { signal: init.signal, dispatcher: this.dispatcher });

  async close(): Promise<void> {
    await this.dispatcher.destroy().catch(() => undefined);
  }
}
