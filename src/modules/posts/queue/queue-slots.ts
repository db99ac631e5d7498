import { wallClock, zonedToUtc } from '@/common/dates/zoned-time';
import { ApiError } from '@/common/errors/api-error';

/** Pure slot arithmetic of posting queues: weekly local times in an IANA zone, as UTC instants. */

export const QUEUE_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type QueueDay = (typeof QUEUE_DAYS)[number];

export interface QueueSlot {
  day: QueueDay;
  time: string;
}

/** True when the runtime knows the IANA zone. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length > 0;
  } catch {
    return false;
  }
}

export function assertTimeZone(zone: string): void {
  if (!isTimeZone(zone))
    throw ApiError.invalid('timezone', `timezone '${zone}' is not an IANA time zone, e.g. Europe/Berlin or UTC.`);
}

/**
 * The next `count` slot instants strictly after `now` that are not in `taken` (UTC ms), in
 * order. Looks ahead at most 400 days.
 */
export function nextSlots(
  zone: string,
  slots: QueueSlot[],
  now: Date,
  count: number,
  taken: ReadonlySet<number> = new Set(),
): Date[] {
  if (slots.length === 0) return [];
  const out: Date[] = [];
  const today = wallClock(now.getTime(), zone);
  const times = [...slots].sort((a, b) => a.time.localeCompare(b.time));
  for (let i = 0; i < 400 && out.length < count; i++) {
    const day = new Date(Date.UTC(today.y, today.mo - 1, today.d + i));
    const wd = (day.getUTCDay() + 6) % 7;
    const seen = new Set<number>();
    for (const s of times) {
      if (QUEUE_DAYS.indexOf(s.day) !== wd) continue;
      const [h, mi] = s.time.split(':').map(Number) as [number, number];
      const at = zonedToUtc(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), h, mi, zone);
      if (at <= now.getTime() || taken.has(at) || seen.has(at)) continue;
      seen.add(at);
      out.push(new Date(at));
      if (out.length >= count) break;
    }
  }
  return out.sort((a, b) => a.getTime() - b.getTime()).slice(0, count);
}
