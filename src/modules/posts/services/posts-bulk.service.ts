import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import { AuthContext } from '@/common/auth/auth-context';
import { ApiError, isApiError } from '@/common/errors/api-error';
import { firstValidationProblem } from '@/common/errors/validation';
import { PLANS } from '@/modules/plans/plans';
import { BulkCreatePostsDto, CreatePostDto } from '../dto/create-post.dto';
import type { BulkCreatedPostsDto, BulkPostErrorDto, BulkValidationDto } from '../dto/post-response.dto';
import type { PostEntity } from '../entities/post.entity';
import { startOfUtcDay } from '../post-rules';
import { hasPostCaps, readPostUsage } from './post-usage';
import { CheckedCreate, PostsCreateService, PreparedCreate } from './posts-create.service';
import { PostValidationService } from './post-validation.service';
import { PostsRepository } from './posts.repository';
import { noFreeSlot, PostingQueueService } from '../queue/posting-queue.service';

/** The field a check names when its error carries none. */
const FIELD_OF_CODE: Record<string, string> = {
  invalid_scheduled_at: 'scheduledAt',
  key_not_linked_to_user: 'publishNow',
  account_not_allowed: 'accountIds',
  platform_not_allowed: 'accountIds',
  approval_required: 'publishNow',
  no_accounts_connected: 'accountIds',
  accounts_not_found: 'accountIds',
};

type Outcome = { ok: true; checked: CheckedCreate } | { ok: false; errors: BulkPostErrorDto[] };

function errorOf(err: unknown): BulkPostErrorDto {
  if (!isApiError(err)) throw err;
  const details = err.details as { field?: unknown } | undefined;
  const field = typeof details?.field === 'string' ? details.field : (FIELD_OF_CODE[err.code] ?? 'posts');
  return { code: err.code, field, message: err.message };
}

/**
 * POST /v1/posts/bulk: every post goes through the checks of POST /v1/posts (PostsCreateService),
 * the caps count the whole batch, and the posts with their targets, history and events are
 * written in one transaction, or none of them.
 */
@Injectable()
export class PostsBulkService {
  constructor(
    private readonly ds: DataSource,
    private readonly repo: PostsRepository,
    private readonly creator: PostsCreateService,
    private readonly validation: PostValidationService,
    private readonly queue: PostingQueueService,
  ) {}

  async dryRun(auth: AuthContext, dto: BulkCreatePostsDto): Promise<BulkValidationDto> {
    const now = new Date();
    const prepared = await this.prepareAll(auth, dto.posts, now);
    const m = this.ds.manager;
    const outcomes = await this.checkAll(m, auth, prepared, now);
    const errors = outcomes.map((o) => (o.ok ? [] : o.errors));
    for (const [index, e] of await this.slotErrors(m, auth, prepared, now)) errors[index].push(e);
    const capError = await this.batchCapError(m, auth, dto.posts.length, now);
    if (capError)
      for (let i = capError.allowed; i < errors.length; i++)
        errors[i].push({ code: capError.error.code, field: 'posts', message: capError.error.message });
    const results = errors.map((e, index) => ({ index, valid: e.length === 0, errors: e }));
    return { valid: results.every((r) => r.valid), results };
  }

  async create(auth: AuthContext, dto: BulkCreatePostsDto): Promise<BulkCreatedPostsDto> {
    const now = new Date();
    const n = dto.posts.length;
    const prepared = await this.prepareAll(auth, dto.posts, now);
    const bodyErrors = prepared.some((p) => 'errors' in p);

    const posts = await this.ds.transaction(async (m) => {
      // invalid_request of a post's body comes first (spec order), then the batch's caps.
      const cap = bodyErrors ? null : await this.batchCapError(m, auth, n, now);
      if (cap) throw cap.error;
      const outcomes = await this.checkAll(m, auth, prepared, now);
      const failed = outcomes.flatMap((o, index) => (o.ok ? [] : o.errors.map((e) => ({ index, e }))));
      for (const [index, e] of await this.slotErrors(m, auth, prepared, now)) failed.push({ index, e });
      if (failed.length > 0) throw this.refused(failed, n);
      const saved: PostEntity[] = [];
      for (const o of outcomes) if (o.ok) saved.push((await this.creator.write(m, auth, o.checked)).post);
      // The inserts' triggers hold the counter rows until commit: concurrent creations queue here.
      const after = await this.batchCapError(m, auth, 0, now);
      if (after) throw after.error;
      return saved;
    });
    for (const post of posts) await this.creator.afterCommit(post);
    return { posts: posts.map((p) => ({ id: p.id, state: p.state })) };
  }

  /** The body checks of each post; a post that is not of the newer shape is refused. */
  private async prepareAll(
    auth: AuthContext,
    posts: Record<string, unknown>[],
    now: Date,
  ): Promise<(PreparedCreate | { errors: BulkPostErrorDto[] })[]> {
    const out: (PreparedCreate | { errors: BulkPostErrorDto[] })[] = [];
    for (const raw of posts) {
      try {
        if (raw.profileId !== undefined)
          throw ApiError.invalid('profileId', 'profileId goes once at the top level of a bulk request.');
        const dto = plainToInstance(CreatePostDto, raw);
        const problem = firstValidationProblem(validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }));
        if (problem) throw ApiError.invalid(problem.field, problem.message);
        const p = await this.creator.prepare(auth, dto, now);
        if (p.req.shape !== 'newer') {
          const field = ['targetIds', 'saveAsDraft'].find((k) => raw[k] !== undefined) ?? 'accountIds';
          throw ApiError.invalid(
            field,
            'Posts of a bulk request take the newer shape: accountIds, with publishNow or scheduledAt.',
          );
        }
        out.push(p);
      } catch (err) {
        out.push({ errors: [errorOf(err)] });
      }
    }
    return out;
  }

  /** Target checks and each network's rules, per post (the daily cap is the batch's). */
  private async checkAll(
    m: EntityManager,
    auth: AuthContext,
    prepared: (PreparedCreate | { errors: BulkPostErrorDto[] })[],
    now: Date,
  ): Promise<Outcome[]> {
    const active = await this.repo.activeAccounts(m, auth);
    return prepared.map((p): Outcome => {
      if ('errors' in p) return { ok: false, errors: p.errors };
      try {
        const checked = this.creator.checkTargets(auth, p, active, null, now);
        const issues = this.validation.check(p.req.content, checked.refs, p.req.paths);
        if (issues.length === 0) return { ok: true, checked };
        return {
          ok: false,
          errors: issues.map((i) => ({
            code: 'invalid_request',
            field: i.field,
            message: `${i.message} [${i.platform} account ${i.accountId}]`,
            ...(i.accountId ? { accountId: i.accountId } : {}),
          })),
        };
      } catch (err) {
        return { ok: false, errors: [errorOf(err)] };
      }
    });
  }

  /**
   * The addToQueue posts of the batch take the next free slots in input order, as their
   * creations would: each one past the free slots (or every one, when the profile has no slots)
   * gets the creation's error.
   */
  private async slotErrors(
    m: EntityManager,
    auth: AuthContext,
    prepared: (PreparedCreate | { errors: BulkPostErrorDto[] })[],
    now: Date,
  ): Promise<[number, BulkPostErrorDto][]> {
    const queued = prepared.flatMap((p, index) => ('errors' in p || !p.req.addToQueue ? [] : [index]));
    if (queued.length === 0) return [];
    let free = 0;
    let noSlots: BulkPostErrorDto | null = null;
    try {
      free = (await this.queue.freeSlots(m, auth, now, queued.length)).length;
    } catch (err) {
      noSlots = errorOf(err);
    }
    return queued.slice(noSlots ? 0 : free).map((index) => [index, noSlots ?? errorOf(noFreeSlot())]);
  }

  /**
   * The plan's monthly quota and the key's daily cap against the counters plus `adding` posts
   * (0 after the inserts, whose triggers already counted them): the error, and how many of the
   * batch would have fitted.
   */
  private async batchCapError(
    m: EntityManager,
    auth: AuthContext,
    adding: number,
    now: Date,
  ): Promise<{ error: ApiError; allowed: number } | null> {
    if (!hasPostCaps(auth)) return null;
    const usage = await readPostUsage(m, auth);
    const monthly = PLANS[auth.plan].quotas.posts_per_month;
    if (monthly !== null && usage.month + adding > monthly) {
      const used = usage.month;
      return {
        error: new ApiError(
          'plan_limit',
          `The ${auth.plan} plan allows ${monthly} posts per month; ${used} are used and this batch adds ${adding || 'more'}.`,
          { entitlement: 'posts_per_month', usage: used, limit: monthly },
        ),
        allowed: Math.max(0, monthly - usage.month),
      };
    }
    const daily = auth.maxPostsPerDay;
    if (daily !== null && usage.day + adding > daily) {
      const resetsAt = new Date(startOfUtcDay(now).getTime() + 86_400_000).toISOString();
      return {
        error: new ApiError(
          'daily_post_limit',
          `This API key may create ${daily} post(s) per day and has created ${usage.day} since 00:00 UTC; this batch adds ${adding || 'more'}. The limit resets at ${resetsAt}.`,
          { limit: daily, used: usage.day, resetsAt },
        ),
        allowed: Math.max(0, daily - usage.day),
      };
    }
    return null;
  }

  private refused(errors: { index: number; e: BulkPostErrorDto }[], total: number): ApiError {
    const indexes = [...new Set(errors.map((x) => x.index))];
    return new ApiError(
      'invalid_request',
      `${indexes.length} of ${total} post(s) failed their checks (details.errors); nothing was created.`,
      {
        field: 'posts',
        errors: errors.map(({ index, e }) => ({ index, code: e.code, field: e.field, message: e.message })),
      },
    );
  }
}
