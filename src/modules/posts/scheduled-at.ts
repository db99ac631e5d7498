import { parseIsoDateTime } from '@/common/dates/strict-dates';
import { ApiError } from '@/common/errors/api-error';

const DAY_MS = 86_400_000;

export { parseIsoDateTime };

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
