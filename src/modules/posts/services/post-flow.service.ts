import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { Actor } from '@/common/outbox/event.entity';
import type { EffectivePolicy } from '@/modules/policy/policy.service';
import { PostEntity, PostState } from '../entities/post.entity';
import { postEventData } from '../post-events';
import { approvalNeeded } from '../post-rules';
import { PostTransitions } from './post-transitions';
import { PostsRepository } from './posts.repository';

export interface GoLiveOptions {
  actor: Actor;
  reason: string;
  /** Publish-now requests drop a stored scheduledAt, so an approval continues straight to queued. */
  clearSchedule?: boolean;
}

/**
 * The one move toward publishing, shared by PUT (schedule a draft), publish, approve and the
 * scheduler: to `scheduled`/`queued`, or to `pending_approval` (approval.requested) where the
 * profile's policy asks for review and the post has no approval yet. Callers check
 * approval_required first where a request can be refused.
 */
@Injectable()
export class PostFlow {
  constructor(
    private readonly transitions: PostTransitions,
    private readonly repo: PostsRepository,
  ) {}

  async goLive(
    m: EntityManager,
    post: PostEntity,
    from: PostState[],
    to: 'scheduled' | 'queued',
    policy: EffectivePolicy,
    opts: GoLiveOptions,
  ): Promise<PostEntity> {
    const targets = await this.repo.targetsOf([post.id], m);
    const scheduledAt = opts.clearSchedule ? null : post.scheduledAt;
    const set = opts.clearSchedule ? { scheduledAt: null } : undefined;
    if (approvalNeeded(policy, post)) {
      const data = {
        ...postEventData({ id: post.id, state: 'pending_approval', scheduledAt }, targets),
        approverUserIds: policy.approverUserIds,
        requestedAction: to === 'scheduled' ? 'schedule' : 'publish',
      };
      return this.transitions.transition(m, post, from, 'pending_approval', {
        actor: opts.actor,
        reason: `${opts.reason}; the profile requires approval`,
        set,
        events: [{ type: 'approval.requested', data }],
      });
    }
    const events =
      to === 'scheduled'
        ? [{ type: 'post.scheduled', data: postEventData({ id: post.id, state: 'scheduled', scheduledAt }, targets) }]
        : [];
    return this.transitions.transition(m, post, from, to, { actor: opts.actor, reason: opts.reason, set, events });
  }
}
