/** Day ranges (YYYY-MM-DD, UTC), as analytics APIs and the simulators count them. */

const DAY_MS = 86_400_000;

/** `date` plus `n` days (n may be negative). */
export function addDays(date: string, n: number): string {
  return new Date(Date.parse(`${date.slice(0, 10)}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** Every UTC day from `from` to `to`, inclusive (at most `max`, 1000 by default). */
export function daysBetween(from: string, to: string, max = 1000): string[] {
  const out: string[] = [];
  for (let day = from; day <= to && out.length < max; day = addDays(day, 1)) out.push(day);
  return out;
}

/** The UTC day (YYYY-MM-DD) of a moment: epoch milliseconds or an ISO time. */
export function dayOf(time: number | string): string {
  return new Date(time).toISOString().slice(0, 10);
}
