import { ApiError } from '@/common/errors/api-error';

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;
const DAY_MS = 86_400_000;

/**
 * Parses an ISO 8601 date-time strictly (no rolled-over dates like 02-30). Any offset is
 * accepted; without one the time is taken as UTC. Returns null when it is not one.
 */
export function parseIsoDateTime(value: string): Date | null {
  const m = ISO_DATE_TIME.exec(value.trim());
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? '0'].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  const offsetMinutes = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  if (
    month < 1 ||
    month > 12 ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59))
  )
    return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return null;
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000);
}

/**
 * scheduledAt of a creation or edit: an ISO 8601 date-time in the future, and no further ahead
 * than the profile's policy allows. Anything else is 400 invalid_scheduled_at.
 */
export function parseScheduledAt(raw: unknown, now: Date, maxDaysAhead: number | null): Date {
  const parsed = typeof raw === 'string' ? parseIsoDateTime(raw) : null;
  if (!parsed)
    throw new ApiError(
      'invalid_scheduled_at',
      `scheduledAt must be an ISO 8601 date-time such as 2030-01-31T09:30:00Z (got ${JSON.stringify(raw)}).`,
    );
  if (parsed.getTime() <= now.getTime())
    throw new ApiError('invalid_scheduled_at', `scheduledAt ${parsed.toISOString()} is in the past.`);
  if (maxDaysAhead !== null && parsed.getTime() > now.getTime() + maxDaysAhead * DAY_MS) {
    throw new ApiError(
      'invalid_scheduled_at',
      `scheduledAt ${parsed.toISOString()} is more than ${maxDaysAhead} days ahead, the most this profile's policy allows.`,
    );
  }
  return parsed;
}
