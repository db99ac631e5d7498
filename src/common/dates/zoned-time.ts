/** Local times in IANA zones, as UTC instants (posting-queue slots, networks' daily caps). */

/** Wall-clock fields of an instant in a zone. */
export function wallClock(
  ms: number,
  zone: string,
): { y: number; mo: number; d: number; h: number; mi: number; wd: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    weekday: 'short',
  }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  const wd = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday'));
  return { y: +get('year'), mo: +get('month'), d: +get('day'), h: +get('hour'), mi: +get('minute'), wd };
}

/** The zone's offset from UTC (ms) at an instant. */
function offsetAt(ms: number, zone: string): number {
  const w = wallClock(ms, zone);
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi) - Math.floor(ms / 60_000) * 60_000;
}

/**
 * The UTC instant of a local date and time in a zone. A time skipped by a daylight-saving
 * change (spring forward) is taken at the same offset as before the change (02:30 → 03:30); a
 * time that happens twice (fall back) is its first occurrence.
 */
export function zonedToUtc(y: number, mo: number, d: number, h: number, mi: number, zone: string): number {
  const local = Date.UTC(y, mo - 1, d, h, mi);
  const before = offsetAt(local - 86_400_000 / 2, zone);
  const after = offsetAt(local + 86_400_000 / 2, zone);
  // Try the larger offset first: for an ambiguous time that is the earlier instant.
  for (const off of [Math.max(before, after), Math.min(before, after)]) {
    const candidate = local - off;
    if (offsetAt(candidate, zone) === off) return candidate;
  }
  return local - before;
}

/** The UTC instant a local day starts (00:00) in a zone, for the day `at` falls in there. */
export function startOfDayIn(zone: string, at: Date): Date {
  const w = wallClock(at.getTime(), zone);
  return new Date(zonedToUtc(w.y, w.mo, w.d, 0, 0, zone));
}

/** The UTC instant the next local day starts in a zone after `at`. */
export function startOfNextDayIn(zone: string, at: Date): Date {
  const w = wallClock(at.getTime(), zone);
  const next = new Date(Date.UTC(w.y, w.mo - 1, w.d + 1));
  return new Date(zonedToUtc(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), 0, 0, zone));
}
