import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { OutboxService } from '@/common/outbox/outbox.service';
import { PolicyService } from '@/modules/policy/policy.service';
import type { CreatedPostDto, PostValidationDto } from '../dto/post-response.dto';
import type { CreatePostDto, ValidatePostDto } from '../dto/create-post.dto';
import { PostTargetEntity } from '../entities/post-target.entity';
import { PostEntity, PostState } from '../entities/post.entity';
import { postEventData } from '../post-events';
import { toPostDto } from '../post-mapper';
import {
  approvalNeeded,
  assertApproversExist,
  assertDailyCap,
  assertHumanActor,
  assertTargetsAllowed,
  assertTargetsFound,
  selectTargets,
} from '../post-rules';
import { CreateIntent, NormalisedCreate, normaliseCreate } from '../post-shape';
import { parseScheduledAt } from '../scheduled-at';
import { assertCapsRefusal, assertMonthlyQuota, hasPostCaps, postCapsOf } from './post-usage';
import { findBlockedTerm, PostValidationService } from './post-validation.service';
import { PostsQueueService } from './posts-queue.service';
import { PostingQueueService } from '../queue/posting-queue.service';
import { capMessage, PublishingCapsService } from '../limits/publishing-caps.service';
import { ActiveAccount, PostsRepository } from './posts.repository';
import type { EffectivePolicy } from '@/modules/policy/policy.service';

/** A creation body past the checks that need no database. */
export interface PreparedCreate {
  req: NormalisedCreate;
  policy: EffectivePolicy;
  scheduledAt: Date | null;
}

/** A creation past its target checks: what to insert. */
export interface CheckedCreate extends PreparedCreate {
  chosen: ActiveAccount[];
  refs: { accountId: string; platform: ActiveAccount['platform'] }[];
  needsApproval: boolean;
}

const CREATED_REASON: Record<PostState, string> = {
  draft: 'created as a draft',
  scheduled: 'created and scheduled',
  queued: 'created for immediate publishing',
  pending_approval: 'created; the profile requires approval',
  approved: 'created',
  rejected: 'created',
  processing: 'created',
  published: 'created',
  partially_published: 'created',
  failed: 'created',
  cancelled: 'created',
};

function initialState(intent: CreateIntent, needsApproval: boolean): PostState {
  if (intent === 'draft') return 'draft';
  if (needsApproval) return 'pending_approval';
  return intent === 'schedule' ? 'scheduled' : 'queued';
}

/** POST /v1/posts and POST /v1/posts/validate. */
@Injectable()
export class PostsCreateService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: PostsRepository,
    private readonly policies: PolicyService,
    private readonly validation: PostValidationService,
    private readonly outbox: OutboxService,
    private readonly queue: PostsQueueService,
    private readonly postingQueue: PostingQueueService,
    private readonly caps: PublishingCapsService,
  ) {}

  /**
   * Checks in the spec's order: invalid_request, invalid_scheduled_at, key_not_linked_to_user,
   * plan_limit, account_not_allowed, platform_not_allowed, approval_required, daily_post_limit,
   * no_accounts_connected, accounts_not_found, then each network's rules. The post, its targets,
   * its first history row and its events commit together; the job is enqueued after the commit.
   */
  async create(auth: AuthContext, dto: CreatePostDto): Promise<CreatedPostDto> {
    const now = new Date();
    const req = normaliseCreate(dto);
    // One read: the policy, the caps' trigger-kept counters (no lock) and the active accounts.
    // The caps are checked here in the spec's order, and again where concurrent creations are
    // serialised: in the insert statement, on the counter rows it takes. A post added to the
    // posting queue claims its slot too, so it runs in a transaction; any other creation is that
    // one statement alone (no BEGIN or COMMIT round trips).
    const checked = async (m: EntityManager): Promise<CheckedCreate> => {
      const read = await this.repo.creationContext(m, auth, hasPostCaps(auth));
      const prepared = this.prepareWith(auth, req, read.policy, now);
      assertMonthlyQuota(auth, read.usage.month);
      const c = this.checkTargets(auth, prepared, read.active, read.usage.day, now);
      this.validation.assertValid(prepared.req.content, c.refs, prepared.req.paths);
      return c;
    };
    const { post, targets } = req.addToQueue
      ? await this.ds.transaction(async (m) => this.write(m, auth, await checked(m), now))
      : await this.write(this.ds.manager, auth, await checked(this.ds.manager), now);

    await this.afterCommit(post);
    return { id: post.id, state: post.state, post: toPostDto(post, targets) };
  }

  /** The checks that need no database: the body, blocked terms, scheduledAt, a human actor. */
  async prepare(auth: AuthContext, dto: CreatePostDto, now: Date): Promise<PreparedCreate> {
    const req = normaliseCreate(dto);
    return this.prepareWith(auth, req, await this.policies.effective(auth.profileId), now);
  }

  /** `prepare` with the body normalised and the profile's policy read. */
  private prepareWith(auth: AuthContext, req: NormalisedCreate, policy: EffectivePolicy, now: Date): PreparedCreate {
    this.validation.assertNoBlockedTerm(req.content, policy.blockedTerms, req.paths);
    const scheduledAt =
      req.scheduledAt !== null ? parseScheduledAt(req.scheduledAt, now, policy.maxScheduleDaysAhead) : null;
    if (req.intent !== 'draft') assertHumanActor(auth);
    return { req, policy, scheduledAt };
  }

  /**
   * The target checks of a creation, in the spec's order (after plan_limit): account and platform
   * allowed, approvers, the daily cap (`usedToday` null: the caller checks it), targets found.
   */
  checkTargets(
    auth: AuthContext,
    p: PreparedCreate,
    active: ActiveAccount[],
    usedToday: number | null,
    now: Date,
  ): CheckedCreate {
    const selection = selectTargets(p.req.accountIds, active, auth.accountIds);
    assertTargetsAllowed(selection, p.policy);
    const needsApproval = p.req.intent !== 'draft' && approvalNeeded(p.policy);
    if (needsApproval) assertApproversExist(p.policy);
    if (usedToday !== null && auth.maxPostsPerDay !== null) assertDailyCap(auth.maxPostsPerDay, usedToday, now);
    assertTargetsFound(selection, p.req.accountField);
    const refs = selection.chosen.map((a) => ({ accountId: a.id, platform: a.platform }));
    return { ...p, chosen: selection.chosen, refs, needsApproval };
  }

  /**
   * Inserts a checked post, its targets, its first history row and its events in the caller's
   * transaction, in one statement (ids made here, so nothing is read back but what the database
   * fills in). `capsAt`: the caller's caps are checked in the insert statement itself (at this
   * time), which writes nothing and answers the caps' error when the post does not fit; without
   * it (a bulk creation, which checks its batch's caps itself) the insert checks none.
   */
  async write(
    m: EntityManager,
    auth: AuthContext,
    c: CheckedCreate,
    capsAt?: Date,
  ): Promise<{ post: PostEntity; targets: PostTargetEntity[] }> {
    const { req, policy } = c;
    const state = initialState(req.intent, c.needsApproval);
    const slot = req.addToQueue ? await this.postingQueue.claim(m, auth, new Date()) : null;
    const post = m.create(PostEntity, {
      id: randomUUID(),
      workspaceId: auth.workspaceId,
      profileId: auth.profileId,
      state,
      contentType: req.content.contentType,
      message: req.content.message ?? null,
      caption: req.content.caption ?? null,
      content: req.content,
      scheduledAt: slot ? slot.at : c.scheduledAt,
      createdByKeyId: auth.keyId,
      createdByUserId: auth.ownerUserId,
      approvedByUserId: null,
      rejectionReason: null,
      publishedAt: null,
    });
    const targets = c.chosen.map((a) =>
      m.create(PostTargetEntity, {
        id: randomUUID(),
        postId: post.id,
        profileId: auth.profileId,
        accountId: a.id,
        platform: a.platform,
        pageName: a.name,
        status: 'pending',
        attempts: 0,
        externalId: null,
        externalUrl: null,
        publishState: {},
        waitingSince: null,
        nextCheckAt: null,
        checks: 0,
        error: null,
        errorCategory: null,
        publishedAt: null,
        firstCommentStatus: null,
        firstCommentId: null,
        firstCommentError: null,
        firstCommentAt: null,
      }),
    );
    const actor = actorOf(auth);
    const data = postEventData(post, targets);
    const events = [{ type: 'post.created', data }];
    if (state === 'scheduled') events.push({ type: 'post.scheduled', data });
    if (state === 'pending_approval')
      events.push({
        type: 'approval.requested',
        data: { ...data, approverUserIds: policy.approverUserIds, requestedAction: req.intent },
      });
    const { inserted, usage } = await this.repo.insertCreated(
      m,
      post,
      targets,
      {
        reason: CREATED_REASON[state],
        actor,
        events: (bind, when) =>
          this.outbox.insertSql(
            events.map((e) => ({ workspaceId: auth.workspaceId, profileId: auth.profileId, actor, ...e })),
            bind,
            when,
          ),
      },
      capsAt ? postCapsOf(auth) : null,
    );
    if (!inserted) assertCapsRefusal(auth, usage ?? { month: 0, day: 0 }, capsAt ?? new Date());
    Object.assign(post, inserted);
    for (const t of targets) Object.assign(t, { createdAt: inserted.createdAt, updatedAt: inserted.updatedAt });
    if (slot) await slot.attach(post.id);
    return { post, targets };
  }

  /** After the commit: the publish or schedule job. */
  async afterCommit(post: PostEntity): Promise<void> {
    if (post.state === 'queued') await this.queue.enqueuePublish(post);
    if (post.state === 'scheduled') await this.queue.enqueueSchedule(post);
  }

  /**
   * The checks of a creation that concern the request and its content, nothing stored: body
   * and target errors answer as for a creation; network rules and blocked terms come back as
   * `{ valid: false, errors }`.
   */
  async validate(auth: AuthContext, dto: ValidatePostDto): Promise<PostValidationDto> {
    const req = normaliseCreate(dto);
    const policy = await this.policies.effective(auth.profileId);
    const scheduledAt =
      req.scheduledAt !== null ? parseScheduledAt(req.scheduledAt, new Date(), policy.maxScheduleDaysAhead) : null;
    const selection = selectTargets(
      req.accountIds,
      await this.repo.activeAccounts(this.ds.manager, auth),
      auth.accountIds,
    );
    assertTargetsAllowed(selection, policy);
    assertTargetsFound(selection, req.accountField);
    const errors = this.validation.check(
      req.content,
      selection.chosen.map((a) => ({ accountId: a.id, platform: a.platform })),
      req.paths,
    );
    const blocked = findBlockedTerm(req.content, policy.blockedTerms, req.paths);
    if (blocked)
      errors.unshift({
        accountId: null,
        platform: null,
        field: blocked.field,
        message: `Contains the blocked term '${blocked.term}', which this profile's policy does not allow.`,
      });
    for (const account of selection.chosen) {
      // The cap at the time the post would go out: now, or its scheduledAt.
      const over = await this.caps.exceeded(account, scheduledAt ?? new Date());
      if (over)
        errors.push({
          accountId: account.id,
          platform: account.platform,
          field: req.accountField,
          code: 'daily_post_limit',
          message: capMessage(account, over),
        });
    }
    return { valid: errors.length === 0, errors };
  }
}
