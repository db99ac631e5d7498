/** Calendar dates as `YYYY-MM-DD` strings, always UTC. */
import { isCalendarDate } from '@/common/dates/strict-dates';

const DAY_MS = 86_400_000;

export function utcDate(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Strict: a real calendar day, years 1970–9999 (src/common/dates/strict-dates.ts). */
export { isCalendarDate };

export function addDays(date: string, days: number): string {
  return utcDate(new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS));
}

/** Days from `from` to `to`, both included (1 when equal; 0 or less when `from` is after `to`). */
export function daysInclusive(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS) + 1;
}

export function datesBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}
