import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { PublishingCap, windowResetsAt, windowStart } from '@/modules/networks/kit/caps';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { PlatformName } from '@/modules/networks/platform-name';
import type { PostTargetEntity } from '../entities/post-target.entity';

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
    return this.count(account, at, m, null);
  }

  /**
   * A fresh send's unit of each cap of its network, taken with `mark` (the target's move to
   * `publishing`) in one transaction, the way post quotas are kept (migration PostUsage): the
   * cap subjects' counter rows are incremented first (their row locks queue concurrent claims
   * of the same cap until commit), then the cap's published targets and the others in flight are
   * counted; at a limit already, the transaction rolls back (the target stays `pending`, nothing
   * is claimed) and the cap is returned. `mark` answers false when the target changed.
   * A claimed unit is held while the target is in flight and kept when it is published; a target
   * that fails gives it back (caps count what was published).
   */
  async claim(
    target: Pick<PostTargetEntity, 'id' | 'accountId' | 'platform'>,
    mark: (m: EntityManager) => Promise<boolean>,
  ): Promise<{ over: CapUsage } | { marked: boolean }> {
    const account = { id: target.accountId, platform: target.platform };
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
        const over = (await this.count(account, new Date(), m, target.id)).find((u) => u.used >= u.limit);
        if (over) throw new OverCap(over);
        return { marked };
      });
    } catch (err) {
      if (err instanceof OverCap) return { over: err.usage };
      throw err;
    }
  }

  /**
   * Each cap of the account's network as of `at`, in one statement (one snapshot): the targets
   * published in the cap's window, of the account or, for an app cap, of every account of the
   * network; and, for a claim, the targets in flight other than the claiming one.
   */
  private async count(
    account: { id: string; platform: PlatformName },
    at: Date,
    m: EntityManager,
    claimingTargetId: string | null,
  ): Promise<CapUsage[]> {
    const caps = this.platforms.caps(account.platform);
    if (caps.length === 0) return [];
    // $6 (some cap is the app's) and $7 (no claim) are known when the statement is planned: an
    // account's caps read the account's rows only, and a plain read counts nothing in flight.
    const rows = await m.query<{ used: number; oldest: Date | null; sending: number }[]>(
      `WITH cap AS (
         SELECT * FROM unnest($1::timestamptz[], $2::boolean[]) WITH ORDINALITY AS c(since, app, n)),
       published AS (
         SELECT account_id, platform, published_at FROM post_targets
          WHERE status = 'success' AND published_at >= (SELECT min(since) FROM cap) AND published_at <= $3
            AND (account_id = $4 OR $6::boolean AND platform = $5)),
       sending AS (
         SELECT account_id FROM post_targets
          WHERE status IN ('publishing', 'waiting_on_network') AND platform = $5 AND ($6::boolean OR account_id = $4)
            AND $7::uuid IS NOT NULL AND id <> $7)
       SELECT published.used, published.oldest, sending.n AS sending
         FROM cap
        CROSS JOIN LATERAL (
          SELECT count(*)::int AS used, min(p.published_at) AS oldest FROM published p
           WHERE p.published_at >= cap.since AND CASE WHEN cap.app THEN p.platform = $5 ELSE p.account_id = $4 END
        ) published
        CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM sending s WHERE cap.app OR s.account_id = $4) sending
        ORDER BY cap.n`,
      [
        caps.map((c) => windowStart(c.window, at)),
        caps.map((c) => c.scope === 'app'),
        at,
        account.id,
        account.platform,
        caps.some((c) => c.scope === 'app'),
        claimingTargetId,
      ],
    );
    return caps.map((cap, i) => {
      const { used, oldest, sending } = rows[i] ?? { used: 0, oldest: null, sending: 0 };
      return {
        ...cap,
        used: used + sending,
        ...(sending > 0 ? { sending } : {}),
        resetsAt: windowResetsAt(cap.window, at, oldest ? new Date(oldest) : null),
      };
    });
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
