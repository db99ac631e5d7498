import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PublishingCap, windowResetsAt, windowStart } from '@/modules/networks/kit/caps';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { PlatformName } from '@/modules/networks/platform-name';

/** One cap of an account's network with what our publish records count against it. */
export interface CapUsage extends PublishingCap {
  used: number;
  /** When room frees up (see windowResetsAt); null when a rolling window counts nothing. */
  resetsAt: Date | null;
}

/**
 * The networks' publishing caps (declared in each network's definition) counted from our own
 * publish records: the targets published (`success`) in the cap's window, for the account, or
 * for every account of the network when the cap is the whole app's (YouTube's project quota).
 */
@Injectable()
export class PublishingCapsService {
  constructor(
    private readonly ds: DataSource,
    private readonly platforms: PlatformRegistry,
  ) {}

  /** Each cap of the account's network as of `at`. */
  async usage(
    account: { id: string; platform: PlatformName },
    at: Date = new Date(),
    m: EntityManager = this.ds.manager,
  ): Promise<CapUsage[]> {
    const out: CapUsage[] = [];
    for (const cap of this.platforms.caps(account.platform)) {
      const [row] = await m.query<{ used: number; oldest: Date | null }[]>(
        `SELECT count(*)::int AS used, min(published_at) AS oldest FROM post_targets
          WHERE status = 'success' AND published_at >= $1 AND published_at <= $2
            AND ${cap.scope === 'app' ? 'platform' : 'account_id'} = $3`,
        [windowStart(cap.window, at), at, cap.scope === 'app' ? account.platform : account.id],
      );
      const oldest = row?.oldest ? new Date(row.oldest) : null;
      out.push({ ...cap, used: row?.used ?? 0, resetsAt: windowResetsAt(cap.window, at, oldest) });
    }
    return out;
  }

  /** The first cap that one more post of the account at `at` would exceed, or null. */
  async exceeded(account: { id: string; platform: PlatformName }, at: Date = new Date()): Promise<CapUsage | null> {
    return (await this.usage(account, at)).find((u) => u.used >= u.limit) ?? null;
  }
}

/** How a cap reads in validation and target errors: names the account and the limit. */
export function capMessage(account: { id: string; platform: string }, u: CapUsage): string {
  const per = u.scope === 'app' ? 'for all accounts of this service' : `for account ${account.id}`;
  const window = {
    rolling_24h: 'per rolling 24 hours',
    day_utc: 'per day (UTC)',
    day_pacific: 'per day (Pacific time)',
  }[u.window];
  const resets = u.resetsAt ? ` It resets at ${u.resetsAt.toISOString()}.` : '';
  return `${account.platform} allows ${u.limit} posts ${window} ${per} (${u.name}); ${u.used} already published.${resets}`;
}
