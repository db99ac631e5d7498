import { startOfDayIn, startOfNextDayIn } from '@/common/dates/zoned-time';

/** A documented publishing cap: our publish records count against it (limits, validate, worker), simulators too. */
export interface PublishingCap {
  /** e.g. `posts_per_24h`; `NETWORK_CAPS=<network>.<name>=<n>` replaces the limit. */
  name: string;
  /** `rolling_24h`: the 24 hours before now; `day_utc` / `day_pacific`: the calendar day there. */
  window: CapWindow;
  limit: number;
  /** `account`: each connected account has its own; `app`: one for every account of this service (YouTube's per-project quota). */
  scope: 'account' | 'app';
  /** Where the network documents the figure. */
  source: string;
}

/** A cap the network documents at `source`: of each connected account, or of the whole app. */
export function cap(
  name: string,
  window: PublishingCap['window'],
  limit: number,
  source: string,
  scope: PublishingCap['scope'] = 'account',
): PublishingCap {
  return { name, window, limit, scope, source };
}

export type CapWindow = 'rolling_24h' | 'day_utc' | 'day_pacific';

const DAY_MS = 86_400_000;
const ZONE: Record<Exclude<CapWindow, 'rolling_24h'>, string> = { day_utc: 'UTC', day_pacific: 'America/Los_Angeles' };

/** Where the window that contains `at` starts. */
export function windowStart(window: CapWindow, at: Date): Date {
  return window === 'rolling_24h' ? new Date(at.getTime() - DAY_MS) : startOfDayIn(ZONE[window], at);
}

/** When room frees up: the next midnight, or when the oldest counted publish leaves a rolling window (null: none). */
export function windowResetsAt(window: CapWindow, at: Date, oldestCounted: Date | null): Date | null {
  if (window !== 'rolling_24h') return startOfNextDayIn(ZONE[window], at);
  return oldestCounted ? new Date(oldestCounted.getTime() + DAY_MS) : null;
}

/** A network's caps with the operator's NETWORK_CAPS overrides (`<network>.<cap>` → limit) applied. */
export function capsWithOverrides(
  network: string,
  caps: readonly PublishingCap[],
  overrides: Record<string, number>,
): PublishingCap[] {
  return caps.map((c) => {
    const limit = overrides[`${network}.${c.name}`];
    return limit === undefined ? c : { ...c, limit };
  });
}

/** What a network itself says about its cap (adapters' `publishingUsage`). */
export interface NetworkCapUsage {
  /** Posts counted by the network in its window; null when it does not say. */
  used: number | null;
  /** The network's own limit; null when it does not say. */
  limit: number | null;
  /** The network says no post can go out now (TikTok's creator_info answers spam_risk_too_many_posts). */
  exhausted: boolean;
}

/** A network's first cap with NETWORK_CAPS applied. */
export function firstCap(
  network: { name: string; caps: readonly PublishingCap[] },
  overrides: Record<string, number>,
): PublishingCap {
  const [cap] = capsWithOverrides(network.name, network.caps, overrides);
  if (!cap) throw new Error(`${network.name} declares no publishing cap`);
  return cap;
}

/** Whether items made at `times` (ms) already fill the cap's window at `now` (simulators refuse the next). */
export function capReached(cap: PublishingCap, times: readonly number[], now: Date = new Date()): boolean {
  const start = windowStart(cap.window, now).getTime();
  return times.filter((t) => t >= start && t <= now.getTime()).length >= cap.limit;
}
