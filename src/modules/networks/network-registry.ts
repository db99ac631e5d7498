import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import type { AdapterEndpoints, PlatformAdapter } from './kit/adapter';
import { capsWithOverrides, PublishingCap } from './kit/caps';
import { sandboxCredentials, sandboxUrls } from './kit/definition';
import { mediaAllowsPrivateUrls, SafeMediaFetch } from './kit/media-fetch';
import { NETWORKS } from './networks';
import { withPublishRun } from './kit/publish-run';
import type { PlatformName } from './platform-name';

/** Each network's adapter, built once from its definition: real endpoints, or in sandbox mode its simulator's. */
@Injectable()
export class PlatformRegistry implements OnApplicationShutdown {
  private readonly adapters = new Map<PlatformName, PlatformAdapter>();
  /** Every adapter downloads user-given media URLs through this (SSRF-safe) fetch. */
  private readonly media: SafeMediaFetch;

  constructor(private readonly config: AppConfig) {
    this.media = new SafeMediaFetch(mediaAllowsPrivateUrls(config));
    const known = Object.values(NETWORKS).flatMap((n) => n.caps.map((c) => `${n.name}.${c.name}`));
    const unknown = Object.keys(config.networkCaps).filter((k) => !known.includes(k));
    const names = `${unknown.join(', ')} (known: ${known.join(', ')})`;
    if (unknown.length > 0) throw new Error(`NETWORK_CAPS names no cap a network declares: ${names}`);
  }

  caps(platform: PlatformName): PublishingCap[] {
    return capsWithOverrides(platform, NETWORKS[platform].caps, this.config.networkCaps);
  }

  get(platform: PlatformName): PlatformAdapter {
    const adapter = this.adapters.get(platform) ?? NETWORKS[platform].create(this.endpointsFor(platform));
    this.adapters.set(platform, adapter);
    return adapter;
  }

  endpointsFor(platform: PlatformName): AdapterEndpoints {
    const { configKeys: keys, real } = NETWORKS[platform];
    const fallback = sandboxCredentials(platform, keys);
    const { enabled, networkUrl } = this.config.sandbox;
    return {
      ...(enabled ? sandboxUrls(platform, real, networkUrl) : real),
      clientId: this.config.setting(keys.clientId, fallback.clientId),
      clientSecret: this.config.setting(keys.clientSecret, fallback.clientSecret),
      timeoutMs: 30_000,
      processingWaitMs: this.config.publishing.processingWaitMs,
      fetchMedia: this.media.fetch,
      mediaLimits: this.config.mediaDownloads,
    };
  }

  /** Runs one target's publish run; in sandbox mode its calls tell the simulators which run it is (#sandbox-flaky). */
  duringPublishRun<T>(runId: () => string, fn: () => Promise<T>): Promise<T> {
    if (!this.config.sandbox.enabled) return fn();
    return withPublishRun({ sandboxPrefix: `${this.config.sandbox.networkUrl}/sandbox/`, runId }, fn);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.media.close();
  }
}
