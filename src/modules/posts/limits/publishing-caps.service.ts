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
  /** Of `used`, the targets being sent now (counted by a claim only). */
  sending?: number;
}

class OverCap extends Error {
  constructor(readonly usage: CapUsage) {
    super('over a publishing cap');
  }
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
    return this.count(account, at, m, false);
  }

  /**
   * A fresh send's unit of each cap of its network, taken with `mark` (the target's move to
   * `publishing`) in one transaction, the way post quotas are kept (migration PostUsage): the
   * cap subjects' counter rows are incremented first (their row locks queue concurrent claims
   * of the same cap until commit), then the cap's published and in-flight targets are counted,
   * this one included; over a limit, the transaction rolls back (the target stays `pending`,
   * nothing is claimed) and the cap is returned. `mark` answers false when the target changed.
   * A claimed unit is held while the target is in flight and kept when it is published; a target
   * that fails gives it back (caps count what was published).
   */
  async claim(
    account: { id: string; platform: PlatformName },
    mark: (m: EntityManager) => Promise<boolean>,
  ): Promise<{ over: CapUsage } | { marked: boolean }> {
    const caps = this.platforms.caps(account.platform);
    if (caps.length === 0) return { marked: await mark(this.ds.manager) };
    try {
      return await this.ds.transaction(async (m) => {
        const subjects = [
          ...new Set(caps.map((c) => `${c.scope}:${c.scope === 'app' ? account.platform : account.id}`)),
        ];
        for (const subject of subjects.sort())
          await m.query(
            `INSERT INTO publishing_cap_claims (subject, claims) VALUES ($1, 1)
             ON CONFLICT (subject) DO UPDATE SET claims = publishing_cap_claims.claims + 1`,
            [subject],
          );
        const marked = await mark(m);
        if (!marked) return { marked };
        const over = (await this.count(account, new Date(), m, true)).find((u) => u.used >= u.limit);
        if (over) throw new OverCap(over);
        return { marked };
      });
    } catch (err) {
      if (err instanceof OverCap) return { over: err.usage };
      throw err;
    }
  }

  /** `claimed`: the caller's target is in flight too; in-flight targets count, the caller's not. */
  private async count(
    account: { id: string; platform: PlatformName },
    at: Date,
    m: EntityManager,
    claimed: boolean,
  ): Promise<CapUsage[]> {
    const out: CapUsage[] = [];
    for (const cap of this.platforms.caps(account.platform)) {
      const subject = cap.scope === 'app' ? 'platform' : 'account_id';
      const args = [windowStart(cap.window, at), at, cap.scope === 'app' ? account.platform : account.id];
      const [row] = await m.query<{ used: number; oldest: Date | null; sending: number }[]>(
        `SELECT count(*)::int AS used, min(published_at) AS oldest,
                ${claimed ? `(SELECT count(*)::int - 1 FROM post_targets WHERE status IN ('publishing', 'waiting_on_network') AND platform = $4 AND ${subject} = $3)` : '0'} AS sending
           FROM post_targets
          WHERE status = 'success' AND published_at >= $1 AND published_at <= $2 AND ${subject} = $3`,
        claimed ? [...args, account.platform] : args,
      );
      const oldest = row?.oldest ? new Date(row.oldest) : null;
      const sending = row?.sending ?? 0;
      out.push({
        ...cap,
        used: (row?.used ?? 0) + sending,
        ...(sending > 0 ? { sending } : {}),
        resetsAt: windowResetsAt(cap.window, at, oldest),
      });
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
  const sending = u.sending ? ` or being sent` : '';
  return `${account.platform} allows ${u.limit} posts ${window} ${per} (${u.name}); ${u.used} already published${sending}.${resets}`;
}
