import { randomUUID } from 'node:crypto';
import type { PlatformAdapter, PublishRequest, PublishResult } from '@/modules/networks/kit/adapter';
import type { PlatformName } from '@/modules/networks/platform-name';

export interface FakeItem {
  id: string;
  nonce: string;
  accountId: string;
  text: string;
}

/** One scripted publish call: do something, optionally letting the item be created first. */
export type FakeStep = (req: PublishRequest, create: () => PublishResult) => Promise<PublishResult>;

/**
 * A network double for the publisher's recovery paths the sandbox cannot produce on demand
 * (lost answers, unknown outcomes). Like a network with client idempotency keys: the adapter
 * saves a nonce in publishState before the call and `findPublished` looks it up.
 */
export class FakeNetwork implements PlatformAdapter {
  readonly supportsComments = false;
  readonly items: FakeItem[] = [];
  readonly script: FakeStep[] = [];
  /** 'unknown': the network offers no way to look an item up. */
  lookup: 'real' | 'unknown' = 'real';
  publishCalls = 0;
  findCalls = 0;
  inFlight = 0;
  maxInFlight = 0;
  delayMs = 0;

  constructor(readonly platform: PlatformName) {}

  async publish(req: PublishRequest): Promise<PublishResult> {
    this.publishCalls += 1;
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const nonce = typeof req.publishState.nonce === 'string' ? req.publishState.nonce : randomUUID();
      await req.saveState({ ...req.publishState, nonce });
      if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
      const create = (): PublishResult => {
        const item: FakeItem = {
          id: `${this.platform}_${this.items.length + 1}_${nonce.slice(0, 6)}`,
          nonce,
          accountId: req.account.platformAccountId,
          text: req.content.text,
        };
        this.items.push(item);
        return {
          externalId: item.id,
          url: `https://${this.platform}.example/${item.id}`,
        };
      };
      const step = this.script.shift();
      return step ? await step(req, create) : create();
    } finally {
      this.inFlight -= 1;
    }
  }

  async findPublished(req: Omit<PublishRequest, 'saveState'>): Promise<PublishResult | null | 'unknown'> {
    this.findCalls += 1;
    if (this.lookup === 'unknown') return 'unknown';
    const item = this.items.find((i) => i.nonce === req.publishState.nonce);
    return item
      ? {
          externalId: item.id,
          url: `https://${this.platform}.example/${item.id}`,
        }
      : null;
  }

  validate(): [] {
    return [];
  }

  authorizeUrl(): string {
    throw new Error('not faked');
  }
  exchangeCode(): never {
    throw new Error('not faked');
  }
  refresh(): never {
    throw new Error('not faked');
  }
  listAccounts(): never {
    throw new Error('not faked');
  }
  getItemMetrics(): never {
    throw new Error('not faked');
  }
  getDailyMetrics(): never {
    throw new Error('not faked');
  }
  listComments(): never {
    throw new Error('not faked');
  }
}
