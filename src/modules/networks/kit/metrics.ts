import type { DailyAccountMetrics, ItemMetrics } from './adapter';
import { daysBetween } from './days';

/**
 * A network's metrics mapping: which of its counters make each of our numbers (summed). A number not named reads the
 * counter of its own name; engagement, when not named, is likes + comments + shares as named.
 */
export type Counters = Partial<Record<keyof ItemMetrics, string | readonly string[]>>;
type Read = (name: string) => number;

const ITEM_KEYS = ['views', 'reach', 'likes', 'comments', 'shares', 'engagement'] as const;
const DAY_KEYS = ['views', 'reach', 'engagement', 'shares'] as const;

function sources(counters: Counters, key: keyof ItemMetrics): string[] {
  const named = counters[key];
  if (named !== undefined) return [named].flat();
  return key === 'engagement' ? (['likes', 'comments', 'shares'] as const).flatMap((k) => sources(counters, k)) : [key];
}

function sum<K extends keyof ItemMetrics>(keys: readonly K[], counters: Counters, read: Read): Record<K, number> {
  const entries = keys.map((key) => [key, sources(counters, key).reduce((total, name) => total + read(name), 0)]);
  return Object.fromEntries(entries) as Record<K, number>;
}

export const itemFromCounters = (counters: Counters, read: Read): ItemMetrics => sum(ITEM_KEYS, counters, read);
export const dayFromCounters = (counters: Counters, read: Read) => sum(DAY_KEYS, counters, read);

/** The counters an item's (or a day's) numbers read, each once, in our numbers' order. */
export function counterNames(counters: Counters, kind: 'item' | 'day'): string[] {
  return [...new Set((kind === 'item' ? ITEM_KEYS : DAY_KEYS).flatMap((key) => sources(counters, key)))];
}

/** Our rows from `from` to `to`: `read(name, date)` is counter `name` that day; followers for all days, or per day. */
export function dayRows(
  range: { from: string; to: string },
  counters: Counters,
  followers: number | ((date: string) => number),
  read: (name: string, date: string) => number,
): DailyAccountMetrics[] {
  return daysBetween(range.from, range.to).map((date) => ({
    date,
    ...dayFromCounters(counters, (name) => read(name, date)),
    followers: typeof followers === 'number' ? followers : followers(date),
  }));
}

/** Items' counters summed by day: `entry(item)` is its day (YYYY-MM-DD) and counters; day → name → total. */
export function sumByDay<T>(items: readonly T[], entry: (item: T) => [string, Record<string, number>]) {
  const out = new Map<string, Record<string, number>>();
  for (const [day, counters] of items.map(entry)) {
    const total = out.get(day) ?? {};
    for (const [name, n] of Object.entries(counters)) total[name] = (total[name] ?? 0) + n;
    out.set(day, total);
  }
  return out;
}
