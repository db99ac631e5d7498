import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { SafeMediaFetch } from '../media-fetch';

/**
 * How the simulators download a post's media, like the network would: through the SSRF-safe
 * agent. The service's own sample media (PUBLIC_BASE_URL/sandbox/_control/media/…) may be on a
 * loopback address; any other URL on a private, loopback or metadata address is refused unless
 * MEDIA_ALLOW_PRIVATE_URLS=true, so a public sandbox cannot be used to reach the internal network.
 */
@Injectable()
export class SandboxMediaFetch implements OnApplicationShutdown {
  private readonly own: SafeMediaFetch;
  private readonly other: SafeMediaFetch;
  private readonly ownOrigin: string;

  constructor(config: AppConfig) {
    this.own = new SafeMediaFetch(true);
    this.other = new SafeMediaFetch(config.mediaDownloads.allowPrivateUrls);
    this.ownOrigin = new URL(config.publicBaseUrl).origin;
  }

  /** Null when the URL downloads as media of `kind`; else why it failed (the network's media error). */
  async problem(url: string | undefined, kind: 'image' | 'video'): Promise<string | null> {
    if (!url || !/^https?:\/\//.test(url)) return 'The media URL is missing or not an http(s) URL.';
    try {
      const via = new URL(url).origin === this.ownOrigin ? this.own : this.other;
      const res = await via.fetch(url, { signal: AbortSignal.timeout(10_000) });
      const type = res.headers.get('content-type') ?? '';
      await res.body?.cancel();
      if (!res.ok) return `Downloading the media failed with HTTP ${res.status}.`;
      if (!type.startsWith(`${kind}/`) && !type.startsWith('application/octet-stream'))
        return `The media is not ${kind === 'image' ? 'an image' : 'a video'} (content type '${type || 'none'}').`;
      return null;
    } catch (err) {
      return `The media could not be downloaded (${err instanceof Error ? err.message : 'error'}).`;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.own.close(), this.other.close()]);
  }
}
