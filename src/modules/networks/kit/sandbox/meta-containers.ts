import { Injectable } from '@nestjs/common';
import { numericId } from './graph-sandbox';
import { SandboxStore } from './sandbox-store';

/**
 * Media containers as Instagram and Threads keep them: created IN_PROGRESS, FINISHED after a
 * couple of status polls (or 3 s), ERROR when the media could not be downloaded, PUBLISHED once
 * published, EXPIRED after 24 h. A video container of a #sandbox-review post stays IN_PROGRESS
 * until its `readyAt` (SANDBOX_REVIEW_MS after creation). Published media are listed per account, newest first.
 */
export type ContainerStatus = 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'PUBLISHED' | 'EXPIRED';

export interface SandboxContainer {
  id: string;
  ownerId: string;
  mediaType: string;
  mediaUrls: string[];
  text: string;
  children: string[];
  isCarouselItem: boolean;
  createdAt: string;
  polls: number;
  /** Why processing failed (shown once the container reports ERROR). */
  error: string | null;
  mediaId: string | null;
  extra: Record<string, string>;
  /** #sandbox-review: processing lasts until this time (ms since epoch). */
  readyAt?: number | null;
}

export interface SandboxMedia {
  id: string;
  ownerId: string;
  mediaType: string;
  text: string;
  mediaUrls: string[];
  timestamp: string;
  permalink: string;
  extra: Record<string, string>;
}

const READY_AFTER_POLLS = 2;
const READY_AFTER_MS = 3000;
const EXPIRES_MS = 24 * 3600 * 1000;

@Injectable()
export class MetaContainers {
  constructor(private readonly store: SandboxStore) {}

  async create(
    network: string,
    c: Omit<SandboxContainer, 'id' | 'createdAt' | 'polls' | 'mediaId'>,
  ): Promise<SandboxContainer> {
    const container: SandboxContainer = {
      ...c,
      id: numericId(),
      createdAt: new Date().toISOString(),
      polls: 0,
      mediaId: null,
    };
    await this.store.put([network, 'container', container.id], container);
    return container;
  }

  async get(network: string, id: string): Promise<SandboxContainer | null> {
    return this.store.get<SandboxContainer>([network, 'container', id]);
  }

  status(c: SandboxContainer): ContainerStatus {
    if (c.mediaId) return 'PUBLISHED';
    if (Date.now() - Date.parse(c.createdAt) > EXPIRES_MS) return 'EXPIRED';
    if (c.polls < READY_AFTER_POLLS && Date.now() - Date.parse(c.createdAt) < READY_AFTER_MS) return 'IN_PROGRESS';
    if (c.readyAt && Date.now() < c.readyAt) return 'IN_PROGRESS';
    return c.error ? 'ERROR' : 'FINISHED';
  }

  /** A status read by the client: counts as one poll. */
  async poll(network: string, id: string): Promise<SandboxContainer | null> {
    return this.store.update<SandboxContainer>([network, 'container', id], (c) => ({ ...c, polls: c.polls + 1 }));
  }

  async publish(network: string, c: SandboxContainer, permalinkBase: string): Promise<SandboxMedia> {
    const id = numericId();
    const media: SandboxMedia = {
      id,
      ownerId: c.ownerId,
      mediaType: c.mediaType,
      text: c.text,
      mediaUrls: c.mediaUrls,
      timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, '+0000'),
      permalink: `${permalinkBase}/${id}`,
      extra: c.extra,
    };
    await this.store.put([network, 'media', id], media);
    await this.store.push([network, 'owner', c.ownerId, 'media'], id);
    await this.store.update<SandboxContainer>([network, 'container', c.id], (x) => ({ ...x, mediaId: id }));
    await this.store.incr([network, 'owner', c.ownerId, 'published', new Date().toISOString().slice(0, 13)], 26 * 3600);
    return media;
  }

  async media(network: string, id: string): Promise<SandboxMedia | null> {
    return this.store.get<SandboxMedia>([network, 'media', id]);
  }

  /** The owner's media, newest first. */
  async recent(network: string, ownerId: string, limit: number): Promise<SandboxMedia[]> {
    const ids = await this.store.list<string>([network, 'owner', ownerId, 'media'], 0, Math.max(0, limit - 1));
    const out: SandboxMedia[] = [];
    for (const id of ids) {
      const m = await this.media(network, id);
      if (m) out.push(m);
    }
    return out;
  }

  /** Posts published in the last 24 h (hour buckets). */
  async publishedLastDay(network: string, ownerId: string): Promise<number> {
    let n = 0;
    for (let h = 0; h < 24; h++) {
      const hour = new Date(Date.now() - h * 3600_000).toISOString().slice(0, 13);
      n += (await this.store.get<number>([network, 'owner', ownerId, 'published', hour])) ?? 0;
    }
    return n;
  }

  /** The body of content_publishing_limit / threads_publishing_limit (fields=quota_usage,config). */
  async publishingLimit(network: string, ownerId: string, limit: number): Promise<unknown> {
    return {
      data: [
        {
          quota_usage: await this.publishedLastDay(network, ownerId),
          config: { quota_total: limit, quota_duration: 86400 },
        },
      ],
    };
  }
}
