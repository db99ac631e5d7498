import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuthContext } from '@/common/auth/auth-context';
import { ApiError } from '@/common/errors/api-error';
import type { NextSlotsDto, PutQueueDto, QueueDto } from './queue.dto';
import { assertTimeZone, nextSlots, QueueSlot } from './queue-slots';

/** How many candidate slots a queued creation tries before giving up (each taken by a concurrent one). */
const CLAIM_CANDIDATES = 50;

/** No free slot left in the look-ahead: every upcoming one is taken. */
export function noFreeSlot(): ApiError {
  return ApiError.invalid(
    'addToQueue',
    'Every upcoming slot of this profile’s queue is taken; add slots (PUT /v1/queue).',
  );
}

/** GET/PUT /v1/queue, GET /v1/queue/next-slots, and the slot a post created with addToQueue takes. */
@Injectable()
export class PostingQueueService {
  constructor(private readonly ds: DataSource) {}

  async get(auth: AuthContext, m: EntityManager = this.ds.manager): Promise<QueueDto> {
    const rows = await m.query<{ timezone: string; slots: QueueSlot[] }[]>(
      `SELECT timezone, slots FROM posting_queues WHERE profile_id = $1`,
      [auth.profileId],
    );
    return rows[0] ?? { timezone: 'UTC', slots: [] };
  }

  async put(auth: AuthContext, dto: PutQueueDto): Promise<QueueDto> {
    assertTimeZone(dto.timezone);
    const unique = new Map(dto.slots.map((s) => [`${s.day} ${s.time}`, { day: s.day, time: s.time }]));
    const slots = [...unique.values()];
    await this.ds.query(
      `INSERT INTO posting_queues (profile_id, timezone, slots, updated_at) VALUES ($1, $2, $3::jsonb, now())
       ON CONFLICT (profile_id) DO UPDATE SET timezone = EXCLUDED.timezone, slots = EXCLUDED.slots, updated_at = now()`,
      [auth.profileId, dto.timezone, JSON.stringify(slots)],
    );
    return { timezone: dto.timezone, slots };
  }

  async next(auth: AuthContext, count: number): Promise<NextSlotsDto> {
    const queue = await this.get(auth);
    const slots = nextSlots(queue.timezone, queue.slots, new Date(), count, await this.taken(this.ds.manager, auth));
    return { slots: slots.map((d) => d.toISOString()) };
  }

  /**
   * Takes the next free slot for a post in the caller's transaction: the insert into
   * posting_queue_slots conflicts (waiting for a concurrent creation's commit) when the slot is
   * taken, and the next candidate is tried. 400 invalid_request when the profile has no slots.
   */
  async claim(
    m: EntityManager,
    auth: AuthContext,
    now: Date,
  ): Promise<{ at: Date; attach: (postId: string) => Promise<void> }> {
    for (const at of await this.freeSlots(m, auth, now, CLAIM_CANDIDATES)) {
      const rows = await m.query<unknown[]>(
        `INSERT INTO posting_queue_slots (profile_id, slot_at) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING slot_at`,
        [auth.profileId, at],
      );
      if (rows.length === 1)
        return {
          at,
          attach: async (postId) => {
            await m.query(`UPDATE posting_queue_slots SET post_id = $3 WHERE profile_id = $1 AND slot_at = $2`, [
              auth.profileId,
              at,
              postId,
            ]);
          },
        };
    }
    throw noFreeSlot();
  }

  /**
   * The next `count` free slots (what claims would take, in order). 400 invalid_request when the
   * profile has no slots; fewer than `count` when the look-ahead runs out.
   */
  async freeSlots(m: EntityManager, auth: AuthContext, now: Date, count: number): Promise<Date[]> {
    const queue = await this.get(auth, m);
    if (queue.slots.length === 0)
      throw ApiError.invalid(
        'addToQueue',
        'addToQueue needs a posting queue: this profile has no slots (PUT /v1/queue).',
      );
    return nextSlots(queue.timezone, queue.slots, now, count, await this.taken(m, auth));
  }

  private async taken(m: EntityManager, auth: AuthContext): Promise<Set<number>> {
    const rows = await m.query<{ slot_at: Date }[]>(
      `SELECT slot_at FROM posting_queue_slots WHERE profile_id = $1 AND slot_at > now()`,
      [auth.profileId],
    );
    return new Set(rows.map((r) => new Date(r.slot_at).getTime()));
  }
}
