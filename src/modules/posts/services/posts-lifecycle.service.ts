import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, QueryDeepPartialEntity } from 'typeorm';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { ApiError } from '@/common/errors/api-error';
import { EffectivePolicy, PolicyService } from '@/modules/policy/policy.service';
import type { UpdatePostDto } from '../dto/create-post.dto';
import type { CancelledPostDto, PostActionResultDto, RetriedPostDto } from '../dto/post-response.dto';
import { PostTargetEntity } from '../entities/post-target.entity';
import { PostEntity, PostState } from '../entities/post.entity';
import { postEventData } from '../post-events';
import { approvalNeeded, assertApproversExist, assertHumanActor, assertTargetsAllowed } from '../post-rules';
import { checkContentPatch, mergeContent, STORED_PATHS } from '../post-shape';
import { parseScheduledAt } from '../scheduled-at';
import { PostFlow } from './post-flow.service';
import { PostTransitions } from './post-transitions';
import { PostValidationService } from './post-validation.service';
import { PostsQueueService } from './posts-queue.service';
import { PostsRepository } from './posts.repository';

const EDITABLE: PostState[] = ['draft', 'scheduled'];
const CANCELLABLE: PostState[] = ['scheduled', 'queued'];
const PUBLISHABLE: PostState[] = ['draft', 'scheduled', 'approved'];
const RETRYABLE: PostState[] = ['failed', 'partially_published'];

/** PUT /v1/posts/{id}, DELETE /v1/posts/{id}, POST /v1/posts/{id}/publish and /retry. */
@Injectable()
export class PostsLifecycleService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: PostsRepository,
    private readonly policies: PolicyService,
    private readonly validation: PostValidationService,
    private readonly transitions: PostTransitions,
    private readonly flow: PostFlow,
    private readonly queue: PostsQueueService,
  ) {}

  /**
   * Edits a draft or scheduled post. A draft with a scheduledAt and `saveAsDraft: false` is
   * scheduled (or sent for approval); a new scheduledAt on a scheduled post reschedules it.
   * Otherwise the state stays. Changed content is checked again and drops an earlier approval.
   */
  async update(auth: AuthContext, id: string, dto: UpdatePostDto): Promise<PostActionResultDto> {
    if (dto.content === undefined && dto.scheduledAt === undefined && dto.saveAsDraft === undefined) {
      throw ApiError.invalid('content', 'Nothing to change: give content, scheduledAt or saveAsDraft.');
    }
    const patch = dto.content !== undefined ? checkContentPatch(dto.content) : null;
    const policy = await this.policies.effective(auth.profileId);
    const now = new Date();
    const newTime =
      dto.scheduledAt === undefined
        ? undefined
        : dto.scheduledAt === null
          ? null
          : parseScheduledAt(dto.scheduledAt, now, policy.maxScheduleDaysAhead);
    const actor = actorOf(auth);

    const { before, after } = await this.ds.transaction(async (m) => {
      const before = await this.repo.findInProfile(auth, id, m, true);
      if (!EDITABLE.includes(before.state))
        throw new ApiError(
          'invalid_state_transition',
          `A ${before.state} post cannot be edited; only draft and scheduled posts can.`,
        );
      let post = before;
      const changes: Partial<PostEntity> = {};
      if (patch) {
        const content = mergeContent(before.content, patch);
        this.validation.assertNoBlockedTerm(content, policy.blockedTerms, STORED_PATHS);
        const targets = await this.repo.targetsOf([before.id], m);
        this.validation.assertValid(
          content,
          targets.map((t) => ({ accountId: t.accountId, platform: t.platform })),
          STORED_PATHS,
        );
        Object.assign(changes, {
          content,
          contentType: content.contentType,
          message: content.message ?? null,
          caption: content.caption ?? null,
          approvedByUserId: null,
        });
      }
      if (before.state === 'scheduled' && newTime === null)
        throw ApiError.invalid(
          'scheduledAt',
          'A scheduled post keeps its scheduledAt; cancel it with DELETE /v1/posts/{id} instead.',
        );
      if (before.state === 'draft' && newTime !== undefined) changes.scheduledAt = newTime;
      if (Object.keys(changes).length > 0) {
        await m.update(PostEntity, { id: before.id }, changes as QueryDeepPartialEntity<PostEntity>);
        post = Object.assign(m.create(PostEntity), before, changes);
      }
      if (before.state === 'draft' && dto.saveAsDraft === false && post.scheduledAt) {
        // A scheduledAt stored earlier must still lie ahead.
        if (newTime === undefined) parseScheduledAt(post.scheduledAt.toISOString(), now, policy.maxScheduleDaysAhead);
        assertHumanActor(auth);
        await this.assertPolicyAllows(m, post, policy);
        if (approvalNeeded(policy, post)) assertApproversExist(policy);
        post = await this.flow.goLive(m, post, ['draft'], 'scheduled', policy, {
          actor,
          reason: 'scheduled by an edit',
        });
      } else if (before.state === 'scheduled' && newTime && newTime.getTime() !== before.scheduledAt?.getTime()) {
        const targets = await this.repo.targetsOf([before.id], m);
        post = await this.transitions.transition(m, post, ['scheduled'], 'scheduled', {
          actor,
          reason: `rescheduled from ${before.scheduledAt?.toISOString() ?? 'none'} to ${newTime.toISOString()}`,
          set: { scheduledAt: newTime },
          events: [
            {
              type: 'post.scheduled',
              data: postEventData({ id: before.id, state: 'scheduled', scheduledAt: newTime }, targets),
            },
          ],
        });
      }
      return { before, after: post };
    });

    await this.queue.sync(before, after);
    return { message: updateMessage(before, after), post: { id: after.id, state: after.state } };
  }

  /** Cancels a scheduled or queued post (post.cancelled). A worker that got there first wins. */
  async cancel(auth: AuthContext, id: string): Promise<CancelledPostDto> {
    const { before, after } = await this.ds.transaction(async (m) => {
      const before = await this.repo.findInProfile(auth, id, m, true);
      if (!CANCELLABLE.includes(before.state))
        throw new ApiError(
          'invalid_state_transition',
          `Only scheduled or queued posts can be cancelled; this post is ${before.state}.`,
        );
      const targets = await this.repo.targetsOf([before.id], m);
      const after = await this.transitions.transition(m, before, CANCELLABLE, 'cancelled', {
        actor: actorOf(auth),
        reason: 'cancelled',
        events: [{ type: 'post.cancelled', data: postEventData({ ...before, state: 'cancelled' }, targets) }],
      });
      return { before, after };
    });
    await this.queue.sync(before, after);
    return { message: 'Post cancelled.', id: after.id, state: 'cancelled' };
  }

  /** Publishes now: draft/scheduled → queued (or pending_approval), approved → queued. */
  async publish(auth: AuthContext, id: string): Promise<PostActionResultDto> {
    const policy = await this.policies.effective(auth.profileId);
    const { before, after } = await this.ds.transaction(async (m) => {
      const before = await this.repo.findInProfile(auth, id, m, true);
      if (!PUBLISHABLE.includes(before.state))
        throw new ApiError(
          'invalid_state_transition',
          `Only draft, scheduled or approved posts can be published; this post is ${before.state}.`,
        );
      assertHumanActor(auth);
      await this.assertPolicyAllows(m, before, policy);
      const actor = actorOf(auth);
      if (before.state === 'approved')
        return {
          before,
          after: await this.flow.goLive(m, before, ['approved'], 'queued', policy, {
            actor,
            reason: 'published after approval',
          }),
        };
      if (approvalNeeded(policy, before)) assertApproversExist(policy);
      return {
        before,
        after: await this.flow.goLive(m, before, [before.state], 'queued', policy, {
          actor,
          reason: 'publish requested',
          clearSchedule: true,
        }),
      };
    });
    await this.queue.sync(before, after);
    return {
      message: after.state === 'pending_approval' ? 'Post sent for approval.' : 'Post queued for publishing.',
      post: { id: after.id, state: after.state },
    };
  }

  /** Requeues a failed or partially published post; only its failed targets publish again. */
  async retry(auth: AuthContext, id: string): Promise<RetriedPostDto> {
    const { before, after } = await this.ds.transaction(async (m) => {
      const before = await this.repo.findInProfile(auth, id, m, true);
      if (!RETRYABLE.includes(before.state))
        throw new ApiError(
          'invalid_state_transition',
          `Only failed or partially_published posts can be retried; this post is ${before.state}.`,
        );
      assertHumanActor(auth);
      const after = await this.transitions.transition(m, before, RETRYABLE, 'queued', {
        actor: actorOf(auth),
        reason: 'retry of the failed targets',
      });
      // Successful targets keep their result; failed ones start over (publish_state kept, so an
      // unknown outcome is still checked on the network before anything is re-sent).
      await m
        .createQueryBuilder()
        .update(PostTargetEntity)
        .set({ status: 'pending', error: null, errorCategory: null })
        .where('post_id = :id AND status = :failed', { id: before.id, failed: 'failed' })
        .execute();
      return { before, after };
    });
    await this.queue.sync(before, after);
    return { post: { id: after.id, status: after.state } };
  }

  /**
   * The profile's policy may have changed since the post was saved: going live checks its
   * platforms (403 platform_not_allowed) and blocked terms (400 invalid_request) again.
   */
  private async assertPolicyAllows(m: EntityManager, post: PostEntity, policy: EffectivePolicy): Promise<void> {
    const targets = await this.repo.targetsOf([post.id], m);
    assertTargetsAllowed(
      {
        chosen: targets.map((t) => ({ id: t.accountId, platform: t.platform, name: t.pageName })),
        notAllowed: [],
        missing: [],
        anyActive: true,
      },
      policy,
    );
    this.validation.assertNoBlockedTerm(post.content, policy.blockedTerms, STORED_PATHS);
  }
}

function updateMessage(before: PostEntity, after: PostEntity): string {
  if (after.state === 'pending_approval') return 'Post updated and sent for approval.';
  if (before.state === 'draft' && after.state === 'scheduled')
    return `Post scheduled for ${after.scheduledAt?.toISOString()}.`;
  if (before.version !== after.version) return `Post rescheduled for ${after.scheduledAt?.toISOString()}.`;
  return 'Post updated.';
}
