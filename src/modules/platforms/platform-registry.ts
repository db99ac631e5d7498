import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { ApiError } from '@/common/errors/api-error';
import type { AdapterEndpoints, PlatformAdapter } from './platform-adapter';
import { PlatformName } from './platform-name';
import { mediaAllowsPrivateUrls, SafeMediaFetch } from './http/safe-media-fetch';
import { facebookAdapterFactory } from './facebook/facebook.adapter';
import { instagramAdapterFactory } from './instagram/instagram.adapter';
import { threadsAdapterFactory } from './threads/threads.adapter';
import { linkedinAdapterFactory } from './linkedin/linkedin.adapter';
import { tiktokAdapterFactory } from './tiktok/tiktok.adapter';
import { youtubeAdapterFactory } from './youtube/youtube.adapter';

/**
 * How to build one network's adapter: its real endpoints, and the path of its simulator under
 * /sandbox. In sandbox mode the same adapter is pointed at `${PUBLIC_BASE_URL}/sandbox/...`.
 */
export interface AdapterFactory {
  real: Omit<AdapterEndpoints, 'clientId' | 'clientSecret' | 'timeoutMs' | 'fetchMedia' | 'processingWaitMs'>;
  /** Same shape, relative to `${PUBLIC_BASE_URL}` (e.g. { apiBaseUrl: '/sandbox/facebook/v23.0', … }). */
  sandbox: Omit<AdapterEndpoints, 'clientId' | 'clientSecret' | 'timeoutMs' | 'fetchMedia' | 'processingWaitMs'>;
  create: (endpoints: AdapterEndpoints) => PlatformAdapter;
}

/** One line per network; each adapter file exports its factory. */
export const ADAPTER_FACTORIES: Partial<Record<PlatformName, AdapterFactory>> = {
  linkedin: linkedinAdapterFactory,
  tiktok: tiktokAdapterFactory,
  youtube: youtubeAdapterFactory,
  facebook: facebookAdapterFactory,
  instagram: instagramAdapterFactory,
  threads: threadsAdapterFactory,
  // @adapter-factories
};

const NETWORK_TIMEOUT_MS = 30_000;

@Injectable()
export class PlatformRegistry implements OnApplicationShutdown {
  private readonly adapters = new Map<PlatformName, PlatformAdapter>();
  /** Every adapter downloads user-given media URLs through this (SSRF-safe) fetch. */
  private readonly media: SafeMediaFetch;

  constructor(private readonly config: AppConfig) {
    this.media = new SafeMediaFetch(mediaAllowsPrivateUrls(config));
  }

  get(platform: PlatformName): PlatformAdapter {
    let adapter = this.adapters.get(platform);
    if (!adapter) {
      const factory = ADAPTER_FACTORIES[platform];
      if (!factory)
        throw new ApiError('invalid_request', `Platform '${platform}' is not available.`, { field: 'platform' });
      adapter = factory.create(this.endpointsFor(platform, factory));
      this.adapters.set(platform, adapter);
    }
    return adapter;
  }

  endpointsFor(platform: PlatformName, factory: AdapterFactory): AdapterEndpoints {
    const creds = this.config.credentials[platform];
    const base = this.config.sandbox.enabled ? prefix(factory.sandbox, this.config.publicBaseUrl) : factory.real;
    return {
      ...base,
      clientId: creds.clientId,
      clientSecret: creds.clientSecret,
      timeoutMs: NETWORK_TIMEOUT_MS,
      processingWaitMs: this.config.publishing.processingWaitMs,
      fetchMedia: this.media.fetch,
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.media.close();
  }
}

function prefix(e: AdapterFactory['sandbox'], base: string): AdapterFactory['sandbox'] {
  return {
    apiBaseUrl: base + e.apiBaseUrl,
    authBaseUrl: base + e.authBaseUrl,
    ...(e.uploadBaseUrl ? { uploadBaseUrl: base + e.uploadBaseUrl } : {}),
  };
}
