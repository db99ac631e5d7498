import { EntityManager } from 'typeorm';

/**
 * Frees the posting-queue slot a post held, in the caller's transaction, when the post leaves it:
 * cancelled or rejected (`keepAt` null), published now or rescheduled to another time (`keepAt`
 * its new scheduledAt, a slot at exactly that time stays). The next addToQueue post can take it.
 */
export async function releaseQueueSlot(
  m: EntityManager,
  post: { id: string; profileId: string },
  keepAt: Date | null,
): Promise<void> {
  await m.query(
    `DELETE FROM posting_queue_slots WHERE profile_id = $1 AND post_id = $2 AND slot_at IS DISTINCT FROM $3`,
    [post.profileId, post.id, keepAt],
  );
}
