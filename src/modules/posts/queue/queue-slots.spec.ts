import { zonedToUtc } from '@/common/dates/zoned-time';
import { nextSlots } from './queue-slots';

describe('queue slots', () => {
  it('should keep the local time across the spring-forward change (Europe/Berlin)', () => {
    // 2026-03-29: clocks go 02:00 → 03:00 (CET +1 → CEST +2). Saturday and Sunday 09:00.
    const now = new Date('2026-03-27T12:00:00Z');
    const slots = nextSlots(
      'Europe/Berlin',
      [
        { day: 'sat', time: '09:00' },
        { day: 'sun', time: '09:00' },
      ],
      now,
      2,
    );
    expect(slots.map((d) => d.toISOString())).toEqual(['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z']);
  });

  it('should keep the local time across the fall-back change (America/New_York)', () => {
    // 2026-11-01: clocks go 02:00 → 01:00 (EDT -4 → EST -5).
    const now = new Date('2026-10-30T12:00:00Z');
    const slots = nextSlots(
      'America/New_York',
      [
        { day: 'sat', time: '08:30' },
        { day: 'sun', time: '08:30' },
      ],
      now,
      2,
    );
    expect(slots.map((d) => d.toISOString())).toEqual(['2026-10-31T12:30:00.000Z', '2026-11-01T13:30:00.000Z']);
  });

  it('should move a skipped local time past the gap and take the first of a repeated one', () => {
    expect(new Date(zonedToUtc(2026, 3, 29, 2, 30, 'Europe/Berlin')).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(new Date(zonedToUtc(2026, 11, 1, 1, 30, 'America/New_York')).toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('should skip taken slots and past times, in order', () => {
    const now = new Date('2026-11-24T10:00:00Z'); // a Tuesday
    const slots = [
      { day: 'tue' as const, time: '09:00' },
      { day: 'tue' as const, time: '12:00' },
      { day: 'wed' as const, time: '08:00' },
    ];
    const taken = new Set([Date.parse('2026-11-24T12:00:00Z')]);
    expect(nextSlots('UTC', slots, now, 3, taken).map((d) => d.toISOString())).toEqual([
      '2026-11-25T08:00:00.000Z',
      '2026-12-01T09:00:00.000Z',
      '2026-12-01T12:00:00.000Z',
    ]);
  });
});
