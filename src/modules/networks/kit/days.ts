/** Day ranges (YYYY-MM-DD, UTC), as analytics APIs and the simulators count them. */

export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

/** Every UTC day from `from` to `to`, inclusive (at most `max`). */
export function daysBetween(from: string, to: string, max = 1000): string[] {
  const out: string[] = [];
  for (let day = from; day <= to && out.length < max; day = addDays(day, 1)) out.push(day);
  return out;
}

/** Unix seconds of a day's start (UTC midnight), `plusDays` later: Graph's since/until, a day's epoch (× 1000). */
export function unixDay(date: string, plusDays = 0): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / 1000) + plusDays * 86_400;
}

/** The UTC day of a moment: epoch milliseconds or an ISO time. */
export const dayOf = (time: number | string): string => new Date(time).toISOString().slice(0, 10);
