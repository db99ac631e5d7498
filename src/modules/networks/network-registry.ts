import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import type { AdapterEndpoints, PlatformAdapter } from './kit/adapter';
import { capsWithOverrides, PublishingCap } from './kit/caps';
import { sandboxCredentials, sandboxUrls } from './kit/definition';
import { mediaAllowsPrivateUrls, SafeMediaFetch } from './kit/media-fetch';
import { NETWORKS } from './networks';
import { withPublishRun } from './kit/publish-run';
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
    const known = new Set(Object.values(NETWORKS).flatMap((n) => n.caps.map((c) => `${n.name}.${c.name}`)));
    const unknown = Object.keys(config.networkCaps).filter((k) => !known.has(k));
    if (unknown.length > 0)
      throw new Error(
        `NETWORK_CAPS names no cap a network declares: ${unknown.join(', ')} (known: ${[...known].join(', ')})`,
      );
  }

  /** The network's publishing caps: its definition's, with NETWORK_CAPS applied. */
  caps(platform: PlatformName): PublishingCap[] {
    return capsWithOverrides(platform, NETWORKS[platform].caps, this.config.networkCaps);
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
    const { enabled, networkUrl } = this.config.sandbox;
    const base = enabled ? sandboxUrls(platform, network.real, networkUrl) : network.real;
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

  /**
   * Runs one target's publish run; in sandbox mode its calls tell the simulators which run it is
   * (`runId`: `<targetId>/<run>`), so `#sandbox-flaky` can fail the first run only. Real networks never see it.
   */
  duringPublishRun<T>(runId: () => string, fn: () => Promise<T>): Promise<T> {
    if (!this.config.sandbox.enabled) return fn();
    return withPublishRun({ sandboxPrefix: `${this.config.sandbox.networkUrl}/sandbox/`, runId }, fn);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.media.close();
  }
}
