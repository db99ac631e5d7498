import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import type { AdapterEndpoints, PlatformAdapter } from './kit/adapter';
import { NetworkUrls, sandboxCredentials } from './kit/definition';
import { mediaAllowsPrivateUrls, SafeMediaFetch } from './kit/media-fetch';
import { NETWORKS } from './networks';
import type { PlatformName } from './platform-name';

const NETWORK_TIMEOUT_MS = 30_000;

/**
 * Builds and caches each network's adapter from its definition: the real endpoints, or in
 * sandbox mode the same adapter pointed at `${PUBLIC_BASE_URL}/sandbox/...`.
 */
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
      adapter = NETWORKS[platform].create(this.endpointsFor(platform));
      this.adapters.set(platform, adapter);
    }
    return adapter;
  }

  endpointsFor(platform: PlatformName): AdapterEndpoints {
    const network = NETWORKS[platform];
    const keys = network.configKeys;
    const fallback = sandboxCredentials(platform, keys);
    const base = this.config.sandbox.enabled ? prefix(network.sandbox, this.config.sandbox.networkUrl) : network.real;
    return {
      ...base,
      clientId: this.config.setting(keys.clientId, fallback.clientId),
      clientSecret: this.config.setting(keys.clientSecret, fallback.clientSecret),
      timeoutMs: NETWORK_TIMEOUT_MS,
      processingWaitMs: this.config.publishing.processingWaitMs,
      fetchMedia: this.media.fetch,
      mediaLimits: this.config.mediaDownloads,
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.media.close();
  }
}

function prefix(e: NetworkUrls, base: string): NetworkUrls {
  return {
    apiBaseUrl: base + e.apiBaseUrl,
    authBaseUrl: base + e.authBaseUrl,
    ...(e.uploadBaseUrl ? { uploadBaseUrl: base + e.uploadBaseUrl } : {}),
  };
}
