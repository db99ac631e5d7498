import { startOfDayIn, startOfNextDayIn } from '@/common/dates/zoned-time';

/** `rolling_24h`: the 24 hours before now; `day_utc` / `day_pacific`: the calendar day there. */
type CapWindow = 'rolling_24h' | 'day_utc' | 'day_pacific';
/** `account`: each connected account has its own; `app`: one for all our accounts (YouTube's per-project quota). */
type CapScope = 'account' | 'app';

/** A cap the network documents at `source` (`name`: e.g. `posts_per_24h`; NETWORK_CAPS=<network>.<name>=<n>). */
export function cap(name: string, window: CapWindow, limit: number, source: string, scope: CapScope = 'account') {
  return { name, window, limit, scope, source };
}

/** A documented publishing cap: our publish records count against it (limits, validate, worker), simulators too. */
export type PublishingCap = ReturnType<typeof cap>;

const DAY_MS = 86_400_000;
const ZONE: Record<Exclude<CapWindow, 'rolling_24h'>, string> = { day_utc: 'UTC', day_pacific: 'America/Los_Angeles' };

export function windowStart(window: CapWindow, at: Date): Date {
  return window === 'rolling_24h' ? new Date(at.getTime() - DAY_MS) : startOfDayIn(ZONE[window], at);
}

/** When room frees up: the next midnight, or when the oldest counted publish leaves a rolling window (null: none). */
export function windowResetsAt(window: CapWindow, at: Date, oldestCounted: Date | null): Date | null {
  if (window !== 'rolling_24h') return startOfNextDayIn(ZONE[window], at);
  return oldestCounted ? new Date(oldestCounted.getTime() + DAY_MS) : null;
}

/** A network's caps with the operator's NETWORK_CAPS overrides (`<network>.<cap>` → limit) applied. */
export function capsWithOverrides(network: string, caps: readonly PublishingCap[], overrides: Record<string, number>) {
  return caps.map((c): PublishingCap => ({ ...c, limit: overrides[`${network}.${c.name}`] ?? c.limit }));
}

/** Whether items made at `times` (ms) already fill the cap's window at `now`. */
export function capReached(cap: PublishingCap, times: readonly number[], now: Date = new Date()): boolean {
  const start = windowStart(cap.window, now).getTime();
  return times.filter((t) => t >= start && t <= now.getTime()).length >= cap.limit;
}

/** What a network itself says about its cap (adapters' `publishingUsage`); null where it does not say. */
export type NetworkCapUsage = {
  used: number | null;
  limit: number | null;
  /** The network says no post can go out now (TikTok's creator_info answers spam_risk_too_many_posts). */
  exhausted: boolean;
};
