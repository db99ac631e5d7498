import { ApiError } from '../errors/api-error';

/**
 * The one way the API reads a date or date-time from a client (bodies, queries, cursors): the
 * ISO 8601 form, a real calendar day (no 02-30), and a year from 1970 to 9999, so every value
 * accepted is one Postgres can store and compare (it has no year 0, JavaScript does).
 */
export const MIN_YEAR = 1970;
export const MAX_YEAR = 9999;

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;
const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function utcDateOf(year: number, month: number, day: number): Date | null {
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1) return null;
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0); // the last day of `month`
  if (day > d.getUTCDate()) return null;
  d.setUTCFullYear(year, month - 1, day);
  return d;
}

/**
 * An ISO 8601 date-time (any offset; without one, UTC), or null when it is not one. Seconds and
 * fractions are optional.
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
  if (hour > 23 || minute > 59 || second > 59 || (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59))) return null;
  const date = utcDateOf(year, month, day);
  if (!date) return null;
  const millis = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  const offsetMinutes = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  return new Date(date.getTime() + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + millis);
}

/** A date-time field of a request: 400 invalid_request naming the field when it is not one. */
export function parseStrictDateTime(value: unknown, field: string): Date {
  const parsed = typeof value === 'string' ? parseIsoDateTime(value) : null;
  if (!parsed)
    throw ApiError.invalid(
      field,
      `${field} must be an ISO 8601 date-time between ${MIN_YEAR} and ${MAX_YEAR}, such as 2030-01-31T09:30:00Z.`,
    );
  return parsed;
}

/** True for a real calendar date in `YYYY-MM-DD` form, years 1970–9999 (2026-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  const m = CALENDAR_DATE.exec(value);
  return !!m && utcDateOf(Number(m[1]), Number(m[2]), Number(m[3])) !== null;
}
