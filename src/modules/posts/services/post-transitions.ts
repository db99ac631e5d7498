import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Actor } from '@/common/outbox/event.entity';
import { ApiError } from '@/common/errors/api-error';
import { OutboxService } from '@/common/outbox/outbox.service';
import { PostHistoryEntity } from '../entities/post-history.entity';
import { PostEntity, PostState } from '../entities/post.entity';
import { releaseQueueSlot } from '../queue/queue-slot-release';

/** States in which a post no longer occupies its posting-queue slot. */
const LEAVES_SLOT: PostState[] = ['cancelled', 'rejected'];

export interface TransitionOptions {
  reason?: string | null;
  actor: Actor;
  /** Events to write with the change (outbox rows in the same transaction). */
  events?: { type: string; data: Record<string, unknown> }[];
  /** Extra columns to set in the same UPDATE. */
  set?: Partial<Pick<PostEntity, 'scheduledAt' | 'approvedByUserId' | 'rejectionReason' | 'publishedAt'>>;
}

/**
 * Every post state change goes through here: one guarded UPDATE (… WHERE state IN (from)),
 * a history row and the outbox events, all on the caller's transaction. A lost race (another
 * process changed the state first) is an `invalid_state_transition`, never a silent overwrite.
 */
@Injectable()
export class PostTransitions {
  constructor(private readonly outbox: OutboxService) {}

  async transition(
    m: EntityManager,
    post: Pick<PostEntity, 'id' | 'workspaceId' | 'profileId'>,
    from: PostState[],
    to: PostState,
    opts: TransitionOptions,
  ): Promise<PostEntity> {
    const result = await m
      .createQueryBuilder()
      .update(PostEntity)
      .set({ state: to, version: () => 'version + 1', ...(opts.set ?? {}) })
      .where('id = :id AND state IN (:...from)', { id: post.id, from })
      .returning('*')
      .execute();
    const raw = (result.raw as Record<string, unknown>[])[0];
    if (!raw) {
      const current = await m.findOne(PostEntity, { where: { id: post.id } });
      throw new ApiError('invalid_state_transition', `A ${current?.state ?? 'missing'} post cannot become ${to}.`);
    }
    if (LEAVES_SLOT.includes(to) || (opts.set && 'scheduledAt' in opts.set))
      await releaseQueueSlot(m, post, LEAVES_SLOT.includes(to) ? null : (opts.set?.scheduledAt ?? null));
    const previous = await m.findOne(PostHistoryEntity, { where: { postId: post.id }, order: { at: 'DESC' } });
    await m.insert(PostHistoryEntity, {
      postId: post.id,
      from: previous?.to ?? null,
      to,
      reason: opts.reason ?? null,
      actor: opts.actor,
    });
    for (const e of opts.events ?? []) {
      await this.outbox.record(m, {
        workspaceId: post.workspaceId,
        profileId: post.profileId,
        type: e.type,
        actor: opts.actor,
        data: e.data,
      });
    }
    const updated = m.create(
      PostEntity,
      m.getRepository(PostEntity).metadata.columns.reduce<Record<string, unknown>>((acc, c) => {
        acc[c.propertyName] = raw[c.databaseName];
        return acc;
      }, {}),
    );
    return updated;
  }

  /** The first history row, written when a post is created. */
  async created(
    m: EntityManager,
    post: Pick<PostEntity, 'id'>,
    state: PostState,
    actor: Actor,
    reason?: string,
  ): Promise<void> {
    await m.insert(PostHistoryEntity, { postId: post.id, from: null, to: state, reason: reason ?? 'created', actor });
  }
}
