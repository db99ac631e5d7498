import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { ApiError } from '@/common/errors/api-error';
import { EffectivePolicy, PolicyService } from '@/modules/policy/policy.service';
import type { RejectPostDto } from '../dto/create-post.dto';
import type { PostActionResultDto } from '../dto/post-response.dto';
import type { PostEntity } from '../entities/post.entity';
import { postEventData } from '../post-events';
import { PostFlow } from './post-flow.service';
import { PostTransitions } from './post-transitions';
import { PostsQueueService } from './posts-queue.service';
import { PostsRepository } from './posts.repository';

/** POST /v1/posts/{id}/approve and /reject (posts:approve, and the key's owner is an approver). */
@Injectable()
export class PostsApprovalService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: PostsRepository,
    private readonly policies: PolicyService,
    private readonly transitions: PostTransitions,
    private readonly flow: PostFlow,
    private readonly queue: PostsQueueService,
  ) {}

  /** pending_approval → approved → scheduled (scheduledAt still ahead) or queued, in one transaction. */
  async approve(auth: AuthContext, id: string): Promise<PostActionResultDto> {
    const { before, after } = await this.ds.transaction(async (m) => {
      const { post: before, policy } = await this.pendingPost(m, auth, id, 'approve');
      const actor = actorOf(auth);
      const targets = await this.repo.targetsOf([before.id], m);
      const approved = await this.transitions.transition(m, before, ['pending_approval'], 'approved', {
        actor,
        reason: 'approved',
        set: { approvedByUserId: auth.ownerUserId },
        events: [
          {
            type: 'approval.approved',
            data: { ...postEventData({ ...before, state: 'approved' }, targets), approvedByUserId: auth.ownerUserId },
          },
        ],
      });
      const ahead = approved.scheduledAt !== null && approved.scheduledAt.getTime() > Date.now();
      const after = await this.flow.goLive(m, approved, ['approved'], ahead ? 'scheduled' : 'queued', policy, {
        actor,
        reason: 'publishing continues after approval',
      });
      return { before, after };
    });
    await this.queue.sync(before, after);
    return {
      message:
        after.state === 'scheduled'
          ? `Post approved and scheduled for ${after.scheduledAt?.toISOString()}.`
          : 'Post approved and queued for publishing.',
      post: { id: after.id, state: after.state },
    };
  }

  /** pending_approval → rejected (approval.rejected with the reason); the post stays unpublished. */
  async reject(auth: AuthContext, id: string, dto: RejectPostDto): Promise<PostActionResultDto> {
    const after = await this.ds.transaction(async (m) => {
      const { post } = await this.pendingPost(m, auth, id, 'reject');
      const reason = dto.reason?.trim() || null;
      const targets = await this.repo.targetsOf([post.id], m);
      return this.transitions.transition(m, post, ['pending_approval'], 'rejected', {
        actor: actorOf(auth),
        reason: reason ? `rejected: ${reason}` : 'rejected',
        set: { rejectionReason: reason },
        events: [
          {
            type: 'approval.rejected',
            data: {
              ...postEventData({ ...post, state: 'rejected' }, targets),
              reason,
              rejectedByUserId: auth.ownerUserId,
            },
          },
        ],
      });
    });
    return { message: 'Post rejected.', post: { id: after.id, state: after.state } };
  }

  /** 404 → 403 (not an approver) → 400 (not pending approval). */
  private async pendingPost(
    m: EntityManager,
    auth: AuthContext,
    id: string,
    action: string,
  ): Promise<{ post: PostEntity; policy: EffectivePolicy }> {
    const post = await this.repo.findInProfile(auth, id, m, true);
    const policy = await this.policies.effective(post.profileId, m);
    if (!auth.ownerUserId || !policy.approverUserIds.includes(auth.ownerUserId)) {
      const who = auth.ownerUserId ? 'the owner of this API key is not one of them' : 'this API key has no owner';
      throw new ApiError('insufficient_permission', `Only the profile's approvers may ${action} posts; ${who}.`, {
        required: 'approver',
      });
    }
    if (post.state !== 'pending_approval')
      throw new ApiError(
        'invalid_state_transition',
        `Only posts pending approval can be ${action}d; this post is ${post.state}.`,
      );
    return { post, policy };
  }
}
