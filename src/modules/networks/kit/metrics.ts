import type { DailyAccountMetrics, ItemMetrics } from './adapter';

/** Each of our numbers as the sum of the network's counters of these names (a network's metrics mapping). */
export type CounterNames<M> = { readonly [K in keyof M]: readonly string[] };
export type ItemCounters = CounterNames<ItemMetrics>;
export type DayCounters = CounterNames<Omit<DailyAccountMetrics, 'date' | 'followers'>>;

/** Our metrics from a network's counters (`read(name)`), as its mapping declares them. */
export function fromCounters<M>(names: CounterNames<M>, read: (name: string) => number): M {
  const out = {} as Record<keyof M, number>;
  for (const key of Object.keys(names) as (keyof M)[])
    out[key] = names[key].reduce((sum: number, n) => sum + read(n), 0);
  return out as M;
}

/** The network's counters a mapping reads, each once, in the order it names them. */
export function counterNames<M>(names: CounterNames<M>): string[] {
  return [...new Set(Object.values<readonly string[]>(names).flat())];
}
