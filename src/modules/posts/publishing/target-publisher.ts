import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { AccountCredentialsService, PublishingAccountRead } from '@/modules/accounts/account-credentials.service';
import { recordPublishOutcome } from '@/common/metrics/metrics';
import { AppConfig } from '@/config/config';
import { preparedQuery } from '@/database/plain-query';
import { perTurn } from '@/database/turn-batch';
import type {
  AccountCredentials,
  PlatformAdapter,
  PublishContent,
  PublishResult,
} from '@/modules/networks/kit/adapter';
import { StillProcessingError } from '@/modules/networks/kit/adapter';
import { NetworkAdapter } from '@/modules/networks/kit/network-adapter';
import { withCallGuard } from '@/modules/networks/kit/publish-run';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type {
  PostTargetEntity,
  TargetErrorCategory,
  TargetOutcomeField,
  TargetStatus,
} from '../entities/post-target.entity';
import { PostTargetEntity as TargetRow } from '../entities/post-target.entity';
import type { PostEntity } from '../entities/post.entity';
import { CapUsage, capMessage, PublishingCapsService } from '../limits/publishing-caps.service';
import { composePublishContent } from './compose-content';
import { NetworkConcurrency } from './network-concurrency';
import {
  asPlatformError,
  decideAfterError,
  decideAfterLookup,
  DEFAULT_RETRY_POLICY,
  nextCheckDelayMs,
  RetryPolicy,
  unknownOutcomeMessage,
  WAITING_LIMIT_MS,
} from './publish-outcome';

type PostForPublishing = Pick<PostEntity, 'id' | 'contentType' | 'message' | 'caption' | 'content'>;

/**
 * Publishes one target of a post, recording every step before the next network call:
 * `pending` → `publishing` (committed before the call) → `success` | `failed`.
 * A target already `publishing` when we get to it was left by a worker that died mid-call:
 * its outcome is unknown, so the network is asked (`findPublished`) before anything is re-sent.
 * A network still processing the item after the in-attempt wait (StillProcessingError) leaves the
 * target `waiting_on_network` with a due time; `followUp` checks it then (one status call, never
 * a new publish) until the network answers, or 24 hours pass (then `unknown_outcome`).
 * The caller holds the post's lock, so no other worker touches these rows meanwhile.
 */
@Injectable()
export class TargetPublisher {
  private readonly logger = new Logger('TargetPublisher');
  private policy: RetryPolicy = DEFAULT_RETRY_POLICY;
  /** Targets whose object may no longer mirror their row (a guarded write found it moved, a follow-up). */
  private readonly stale = new WeakSet<PostTargetEntity>();
  /** Targets whose outcomes are held back (holdOutcomes). */
  private readonly holds = new WeakMap<PostTargetEntity, OutcomeHold>();

  constructor(
    private readonly ds: DataSource,
    private readonly platforms: PlatformRegistry,
    private readonly credentials: AccountCredentialsService,
    private readonly concurrency: NetworkConcurrency,
    private readonly config: AppConfig,
    private readonly caps: PublishingCapsService,
  ) {}

  /** Tests shorten the in-attempt backoff. */
  setRetryPolicy(policy: Partial<RetryPolicy>): void {
    this.policy = { ...this.policy, ...policy };
  }

  /** The in-attempt retries, also those of a target's first comment. */
  get retryPolicy(): RetryPolicy {
    return this.policy;
  }

  /**
   * Whether `target` (as passed to publish, followUp or refuse, and settled) is still its row as
   * it stands: every write here mirrors itself on the object; one that found the row moved, or a
   * follow-up (which works on a reloaded copy), leaves it to be read again.
   */
  isCurrent(target: PostTargetEntity): boolean {
    return !this.stale.has(target);
  }

  /**
   * From now on the outcomes (success, failed) of these targets are mirrored on the objects but
   * held back for at most OUTCOME_HOLD_MS: the caller writes them with the post's final move
   * (OutcomeHold.take, outcomesSql, outcomesWritten), or OutcomeHold.flush writes them, which it
   * does by itself once the first held one has waited that long (a target still in flight beside
   * them: the others' results show without waiting for it). The at-most-once protocol holds: an
   * outcome comes after the target's last network call, so a run that dies before it is written
   * leaves the target `publishing` with its progress saved, which the next run checks on the
   * network before anything is sent again, as when a run dies during the call.
   */
  holdOutcomes(targets: PostTargetEntity[]): OutcomeHold {
    const hold = new OutcomeHold(
      (held) => this.writeOutcomes(held),
      (err) => this.logger.warn({ err: err.message }, 'Could not record target outcomes; kept for the final move'),
    );
    for (const t of targets) this.holds.set(t, hold);
    return hold;
  }

  /**
   * A data-modifying statement writing these held outcomes (OutcomeHold.take), each guarded by the
   * status as finish guards it, answering the `id` of each row written.
   */
  outcomesSql(held: HeldOutcomes, bind: (value: unknown) => string): string {
    const column = <K extends keyof HeldOutcome>(key: K) => held.map(([, o]) => o[key] ?? null);
    // A failure leaves the target's earlier external id, URL and publish time as they were (as finish's SET).
    const ifSuccess = (col: string) => `CASE WHEN o.status = 'success' THEN o.${col} ELSE t.${col} END`;
    return `UPDATE post_targets t SET status = o.status, error = o.error, error_category = o.error_category,
        external_id = ${ifSuccess('external_id')}, external_url = ${ifSuccess('external_url')},
        published_at = ${ifSuccess('published_at')}, next_check_at = NULL, waiting_since = NULL, updated_at = now()
      FROM unnest(${bind(held.map(([t]) => t.id))}::uuid[], ${bind(column('status'))}::text[], ${bind(column('error'))}::text[],
        ${bind(column('errorCategory'))}::text[], ${bind(column('externalId'))}::text[], ${bind(column('externalUrl'))}::text[],
        ${bind(column('publishedAt'))}::timestamptz[]) AS o(id, status, error, error_category, external_id, external_url, published_at)
      WHERE t.id = o.id AND t.status = ANY(${bind(UNSETTLED)}::text[])
      RETURNING t.id`;
  }

  /** After outcomesSql ran: `written`, the ids of the rows it wrote (a target not written is read again). */
  outcomesWritten(held: HeldOutcomes, written: string[]): void {
    const ids = new Set(written);
    for (const [t, outcome] of held) {
      if (ids.has(t.id)) recordPublishOutcome(t.platform, outcome.status, outcome.errorCategory);
      else this.stale.add(t);
    }
  }

  /** These held outcomes written now, in one statement. */
  private async writeOutcomes(held: HeldOutcomes): Promise<void> {
    const params: unknown[] = [];
    const sql = this.outcomesSql(held, (v) => `$${params.push(v)}`);
    const { rows } = await preparedQuery<{ id: string }>(this.ds, sql, params);
    this.outcomesWritten(
      held,
      rows.map((r) => r.id),
    );
  }

  /** `accountRead`: the target's account as the run read it with its targets (used while still fresh). */
  async publish(
    post: PostForPublishing,
    initial: PostTargetEntity,
    accountRead?: PublishingAccountRead,
  ): Promise<void> {
    // Settled, or waiting on the network (followUp's business).
    if (initial.status !== 'pending' && initial.status !== 'publishing') return;
    await this.concurrency.run(initial.platform, () => this.publishHoldingSlot(post, initial, accountRead));
  }

  /** Fails a target that was not sent (and will not be): no network call, no slot taken. */
  async refuse(target: PostTargetEntity, category: TargetErrorCategory, message: string): Promise<void> {
    await this.fail(target, category, message);
  }

  /**
   * `target` was read by this run after it took the post's lock, and only the lock's holder
   * writes the targets of a processing post (a retry takes only failed or partially published
   * posts, a cancel only scheduled or queued ones): it is still the row as it stands, however
   * long the slot took, so it is not read again. Every write below is guarded by the status (and
   * the move to `publishing` by the attempt count) it expects anyway.
   */
  private async publishHoldingSlot(
    post: PostForPublishing,
    target: PostTargetEntity,
    accountRead?: PublishingAccountRead,
  ): Promise<void> {
    return this.platforms.duringPublishRun(runIdOf(target), () => this.publishLoaded(post, target, accountRead));
  }

  private async publishLoaded(
    post: PostForPublishing,
    target: PostTargetEntity,
    accountRead?: PublishingAccountRead,
  ): Promise<void> {
    let adapter: PlatformAdapter;
    try {
      adapter = this.platforms.get(target.platform);
    } catch (err) {
      // A network this deployment does not offer (any more): nothing can be sent.
      const message = (err as Error).message;
      return target.status === 'publishing'
        ? this.fail(target, 'unknown_outcome', unknownOutcomeMessage(message))
        : this.fail(target, 'network_error', message);
    }
    const content = composePublishContent(post, target);

    const fresh = target.status === 'pending' && Object.keys(target.publishState).length === 0;
    if (fresh) {
      // A fresh send over its network's cap would only earn the network's refusal: fail it here.
      const over = await this.caps.exceeded({ id: target.accountId, platform: target.platform });
      if (over) return this.overCap(target, over);
    }

    // The run's read of the account on the first try only; a retry reads it again.
    let read = accountRead;
    const account = await this.withRetries(() => {
      const first = read;
      read = undefined;
      return this.credentials.forPublishing(target.accountId, first);
    }, 'throw');
    if (!account.ok) {
      // Without credentials nothing is sent; but a target left mid-call may already be out there.
      if (target.status === 'publishing')
        return this.fail(
          target,
          'unknown_outcome',
          unknownOutcomeMessage(`the check could not run: ${account.message}`),
        );
      return this.fail(target, account.category, account.message);
    }

    if (target.status === 'publishing' && adapter.checkProcessing && Object.keys(target.publishState).length > 0) {
      // A previous run died during the call, maybe while the network was processing the item.
      const check = await this.withRetries(() =>
        adapter.checkProcessing!({ account: account.value, content, publishState: target.publishState }),
      );
      if (check.ok && check.value.status === 'processing')
        return this.park(target, 'the worker stopped while the network was processing the item');
      if (check.ok && check.value.status === 'published') return this.succeed(target, check.value.result);
      if (check.ok && check.value.status === 'failed') {
        await this.saveState(target, {});
        return this.fail(target, check.value.error.category, check.value.error.message);
      }
      // 'ready' or no answer: the usual unknown-outcome check below decides.
    }

    if (target.status === 'publishing') {
      // A previous run died during the call: find out what the network did with it.
      const settled = await this.settleUnknownOutcome(
        adapter,
        target,
        account.value,
        content,
        'the worker stopped during the publish call',
      );
      if (settled) return;
    }

    if (target.status === 'pending' && target.attempts > 0 && Object.keys(target.publishState).length > 0) {
      // A retried target with network-side progress: an earlier attempt may have landed after all.
      const earlier = await this.withRetries(() =>
        adapter.findPublished({ account: account.value, content, publishState: target.publishState }),
      );
      if (earlier.ok && earlier.value !== null && earlier.value !== 'unknown')
        return this.succeed(target, earlier.value);
    }

    const claims = fresh && this.platforms.caps(target.platform).length > 0;
    if (!claims && adapter instanceof NetworkAdapter) {
      // An adapter of the kit (its network calls go through callNetwork, which waits for the move):
      // the move goes with the adapter's first saved progress, in one statement, or on its own
      // before the adapter's first network call, whichever comes first. Committed before any call.
      const attempts = target.attempts;
      const move = new HeldMove((state) => this.moveHeld(target, attempts, state));
      return this.send(adapter, startRun(target), account.value, content, move);
    }
    if (claims) {
      // The check above is a read: a unit of each cap is claimed with the move to `publishing`,
      // so of two sends racing for a cap's last unit exactly one goes out.
      // Over a cap, the move rolls back with the claim: the target is still as it was.
      const claim = await this.caps.claim(target, (m) => this.movePublishing(target, m));
      if ('over' in claim) return this.overCap(target, claim.over);
      if (!claim.marked) return;
    } else if (!(await this.movePublishing(target))) return;
    return this.send(adapter, startRun(target), account.value, content);
  }

  private overCap(target: PostTargetEntity, over: CapUsage): Promise<void> {
    const account = { id: target.accountId, platform: target.platform };
    return this.fail(target, 'network_rate_limited', `Not sent: ${capMessage(account, over)}`);
  }

  /** The publish call with its in-attempt retries; the target is `publishing` (committed). */
  private async send(
    adapter: PlatformAdapter,
    target: PostTargetEntity,
    account: AccountCredentials,
    content: PublishContent,
    move?: HeldMove,
  ): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        const request = {
          account,
          content,
          publishState: target.publishState,
          saveState: (s: Record<string, unknown>) => this.saveState(target, s, move),
        };
        const result = move ? await move.around(() => adapter.publish(request)) : await adapter.publish(request);
        return await this.succeed(target, result);
      } catch (err) {
        // The held move found the target changed (never under the post's lock): nothing was sent.
        if (err instanceof TargetMovedError) return;
        // Taken by the network, still processing: free the worker, check back later.
        if (err instanceof StillProcessingError) return this.park(target, err.message);
        const decision = decideAfterError(err, tries, this.policy);
        switch (decision.kind) {
          case 'fail':
            return this.fail(target, decision.category, decision.message);
          case 'retry':
            this.logger.warn(
              {
                targetId: target.id,
                platform: target.platform,
                tries,
                delayMs: decision.delayMs,
                err: (err as Error).message,
              },
              'Publish failed; retrying',
            );
            await sleep(decision.delayMs);
            break;
          case 'check': {
            const settled = await this.settleUnknownOutcome(adapter, target, account, content, decision.message);
            if (settled) return;
            // Certainly not published: send again while tries remain.
            if (tries >= this.policy.tries) return this.fail(target, 'network_error', decision.message);
            break;
          }
        }
      }
    }
  }

  /**
   * A follow-up check of a target waiting on the network (the post's lock is held): one status
   * call. Published → success; given up by the network → failed with its category; processing
   * over → the publish continues from the saved progress; still processing → the next check is
   * due later (back-off), or after 24 hours of waiting the target fails as `unknown_outcome`.
   */
  async followUp(post: PostForPublishing, initial: PostTargetEntity): Promise<void> {
    if (initial.status !== 'waiting_on_network') return;
    this.stale.add(initial);
    await this.concurrency.run(initial.platform, () => this.followUpHoldingSlot(post, initial));
  }

  private async followUpHoldingSlot(post: PostForPublishing, initial: PostTargetEntity): Promise<void> {
    const target = await this.reload(initial.id);
    if (!target || target.status !== 'waiting_on_network') return;
    return this.platforms.duringPublishRun(runIdOf(target), () => this.followUpLoaded(post, target));
  }

  private async followUpLoaded(post: PostForPublishing, target: PostTargetEntity): Promise<void> {
    const waited = Date.now() - (target.waitingSince ?? target.updatedAt).getTime();
    const giveUp = (cause: string) =>
      this.fail(target, 'unknown_outcome', unknownOutcomeMessage(`the network was still processing it: ${cause}`));
    let adapter: PlatformAdapter;
    try {
      adapter = this.platforms.get(target.platform);
    } catch (err) {
      return giveUp((err as Error).message);
    }
    const content = composePublishContent(post, target);
    const checkFailed = (failure: { category: TargetErrorCategory; message: string }): Promise<void> => {
      // A transient failure of the check itself: try again at the next due time.
      const transient = failure.category === 'network_error' || failure.category === 'network_rate_limited';
      if (transient && waited < WAITING_LIMIT_MS) return this.scheduleCheck(target);
      return giveUp(`the check failed: ${failure.message}`);
    };
    const account = await this.withRetries(() => this.credentials.forPublishing(target.accountId), 'throw');
    if (!account.ok) return checkFailed(account);
    const checkProcessing = adapter.checkProcessing?.bind(adapter);
    if (!checkProcessing) return giveUp('this network offers no status check');
    const check = await this.withRetries(() =>
      checkProcessing({ account: account.value, content, publishState: target.publishState }),
    );
    if (!check.ok) return checkFailed(check);
    const answer = check.value;
    switch (answer.status) {
      case 'published':
        return this.succeed(target, answer.result);
      case 'failed':
        // Certainly not published: forget the network-side progress so a retry starts over.
        await this.saveState(target, {});
        return this.fail(target, answer.error.category, answer.error.message);
      case 'processing':
        if (waited >= WAITING_LIMIT_MS) return giveUp(`still processing after ${Math.round(waited / 3_600_000)} h`);
        return this.scheduleCheck(target);
      case 'ready':
        if (!(await this.movePublishing(target))) return;
        return this.send(adapter, startRun(target), account.value, content);
    }
  }

  /** publishing → waiting_on_network, first check due after the base delay. */
  private async park(target: PostTargetEntity, message: string): Promise<void> {
    const now = Date.now();
    const set = {
      status: 'waiting_on_network' as const,
      waitingSince: target.waitingSince ?? new Date(now),
      checks: 0,
      nextCheckAt: new Date(now + nextCheckDelayMs(0, this.config.publishing.checkBaseMs)),
    };
    const res = await this.ds
      .createQueryBuilder()
      .update(TargetRow)
      .set(set)
      .where('id = :id AND status = :from', { id: target.id, from: 'publishing' satisfies TargetStatus })
      .execute();
    if (!res.affected) {
      this.stale.add(target);
      return;
    }
    Object.assign(target, set);
    this.logger.log(
      { targetId: target.id, platform: target.platform, nextCheckAt: set.nextCheckAt, err: message },
      'Network still processing; waiting on it',
    );
  }

  /** Another follow-up check, later (doubling up to the cap). */
  private async scheduleCheck(target: PostTargetEntity): Promise<void> {
    const checks = target.checks + 1;
    const nextCheckAt = new Date(Date.now() + nextCheckDelayMs(checks, this.config.publishing.checkBaseMs));
    await this.ds
      .createQueryBuilder()
      .update(TargetRow)
      .set({ checks, nextCheckAt })
      .where('id = :id AND status = :s', { id: target.id, s: 'waiting_on_network' satisfies TargetStatus })
      .execute();
    Object.assign(target, { checks, nextCheckAt });
  }

  /**
   * Asks the network whether the item exists. true = the target now has its result (success,
   * or failed as an unknown outcome); false = certainly not published, safe to send again.
   */
  private async settleUnknownOutcome(
    adapter: PlatformAdapter,
    target: PostTargetEntity,
    account: AccountCredentials,
    content: PublishContent,
    cause: string,
  ): Promise<boolean> {
    const lookup = await this.withRetries(() =>
      adapter.findPublished({
        account,
        content,
        publishState: target.publishState,
      }),
    );
    if (!lookup.ok) {
      await this.fail(
        target,
        'unknown_outcome',
        unknownOutcomeMessage(`${cause}; the check failed: ${lookup.message}`),
      );
      return true;
    }
    const decision = decideAfterLookup(lookup.value, cause);
    switch (decision.kind) {
      case 'success':
        await this.succeed(target, decision.result);
        return true;
      case 'fail':
        await this.fail(target, decision.category, decision.message);
        return true;
      case 'republish':
        return false;
    }
  }

  /**
   * A network call with the in-attempt retries for transient failures; a permanent failure
   * comes back as `ok: false` with the category to record. An unclassified error is rethrown
   * when `unclassified` is 'throw' (our own infrastructure: the job retries and resumes later).
   */
  private async withRetries<T>(
    call: () => Promise<T>,
    unclassified: 'throw' | 'fail' = 'fail',
  ): Promise<{ ok: true; value: T } | { ok: false; category: TargetErrorCategory; message: string }> {
    for (let tries = 1; ; tries++) {
      try {
        return { ok: true, value: await call() };
      } catch (err) {
        if (unclassified === 'throw' && !asPlatformError(err)) throw err;
        const decision = decideAfterError(err, tries, this.policy);
        if (decision.kind === 'retry') {
          await sleep(decision.delayMs);
          continue;
        }
        return {
          ok: false,
          category: decision.kind === 'fail' ? decision.category : 'network_error',
          message: decision.message,
        };
      }
    }
  }

  private async reload(id: string): Promise<PostTargetEntity | null> {
    return this.ds.getRepository(TargetRow).findOne({ where: { id } });
  }

  /**
   * The move to `publishing` (a new run), committed before the network call: a crash from here on
   * leaves a visible unknown outcome. The caller mirrors it with startRun once it is committed.
   */
  private async movePublishing(target: PostTargetEntity, m: EntityManager = this.ds.manager): Promise<boolean> {
    // Plain SQL on this hot path (the query builder cost more CPU than the statement).
    const { rowCount } = await preparedQuery(
      m,
      `UPDATE post_targets SET status = 'publishing', attempts = attempts + 1, error = NULL, error_category = NULL,
          updated_at = now()
        WHERE id = $1 AND status = ANY($2::text[]) AND attempts = $3`,
      [target.id, UNSETTLED, target.attempts],
    );
    if (!rowCount) {
      this.logger.warn({ targetId: target.id }, 'Target changed under the publisher; leaving it');
      this.stale.add(target);
      return false;
    }
    return true;
  }

  /**
   * A held move (HeldMove: the target object already mirrors it), guarded by the attempts it
   * started from, maybe with the adapter's first saved progress; as movePublishing, but the moves
   * of one turn (a post's targets, which start together) are one statement.
   */
  private async moveHeld(
    target: PostTargetEntity,
    attempts: number,
    state: Record<string, unknown> | undefined,
  ): Promise<boolean> {
    if (await this.movesOfTurn({ id: target.id, attempts, state: state ? JSON.stringify(state) : null })) return true;
    this.logger.warn({ targetId: target.id }, 'Target changed under the publisher; leaving it');
    this.stale.add(target);
    return false;
  }

  private readonly movesOfTurn = perTurn(async (moves: { id: string; attempts: number; state: string | null }[]) => {
    const sorted = [...moves].sort(byId);
    const { rows } = await preparedQuery<{ id: string }>(
      this.ds,
      `UPDATE post_targets t SET status = 'publishing', attempts = t.attempts + 1, error = NULL, error_category = NULL,
          publish_state = coalesce(o.state, t.publish_state), updated_at = now()
        FROM unnest($1::uuid[], $2::int[], $3::jsonb[]) AS o(id, attempts, state)
        WHERE t.id = o.id AND t.status = ANY($4::text[]) AND t.attempts = o.attempts
        RETURNING t.id`,
      [sorted.map((m) => m.id), sorted.map((m) => m.attempts), sorted.map((m) => m.state), UNSETTLED],
    );
    const moved = new Set(rows.map((r) => r.id));
    return moves.map((m) => moved.has(m.id));
  });

  private async saveState(target: PostTargetEntity, state: Record<string, unknown>, move?: HeldMove): Promise<void> {
    // The first progress of a run whose move is still held goes with it.
    if (await move?.withState(state)) {
      target.publishState = state;
      return;
    }
    await this.savesOfTurn({ id: target.id, state: JSON.stringify(state) });
    target.publishState = state;
  }

  /** Progress saves; those of one turn (a post's targets whose answers came in together) as one statement. */
  private readonly savesOfTurn = perTurn(async (saves: { id: string; state: string }[]) => {
    // One row per target (its last save of the turn), in the order of the ids.
    const sorted = [...new Map(saves.map((v) => [v.id, v])).values()].sort(byId);
    await preparedQuery(
      this.ds,
      `UPDATE post_targets t SET publish_state = o.state, updated_at = now()
        FROM unnest($1::uuid[], $2::jsonb[]) AS o(id, state) WHERE t.id = o.id`,
      [sorted.map((s) => s.id), sorted.map((s) => s.state)],
    );
    return saves.map(() => undefined);
  });

  private async succeed(target: PostTargetEntity, result: PublishResult): Promise<void> {
    await this.finish(target, {
      status: 'success',
      externalId: result.externalId,
      externalUrl: result.url ?? null,
      error: null,
      errorCategory: null,
      publishedAt: new Date(),
    });
  }

  private async fail(target: PostTargetEntity, category: TargetErrorCategory, message: string): Promise<void> {
    this.logger.warn(
      {
        targetId: target.id,
        platform: target.platform,
        category,
        err: message,
      },
      'Target failed',
    );
    // The network refused the token: the account needs reconnecting (account.disconnected, once).
    if (category === 'auth_expired') await this.credentials.markRevoked(target.accountId, message);
    await this.finish(target, {
      status: 'failed',
      error: message,
      errorCategory: category,
    });
  }

  private async finish(target: PostTargetEntity, set: HeldOutcome): Promise<void> {
    const hold = this.holds.get(target);
    this.holds.delete(target);
    // An outcome ends any wait on the network (outcomesSql clears both columns).
    Object.assign(target, set, { nextCheckAt: null, waitingSince: null });
    // Held for the post's final move (holdOutcomes): written with it or by the hold; otherwise now,
    // by the same statement (a target whose row moved meanwhile is left to be read again).
    return hold ? hold.hold(target, set) : this.writeOutcomes([[target, set]]);
  }
}

/** A held move to `publishing` found the target changed: nothing was sent. */
class TargetMovedError extends Error {
  override readonly name = 'TargetMovedError';
}

/**
 * A target's move to `publishing` held back until the adapter saves its first progress (written
 * together, withState) or makes its first network call (written alone first: `around` runs the
 * adapter's publish under withCallGuard, which callNetwork waits for), whichever comes first; after
 * the publish call it is written in any case. Once only: the retries of the same run find it done.
 * A move that finds the target changed rejects with TargetMovedError (no call is made).
 */
class HeldMove {
  private done: Promise<void> | undefined;

  /** `write`: the move, with the progress to save when there is one; false when the target changed. */
  constructor(private readonly write: (state: Record<string, unknown> | undefined) => Promise<boolean>) {}

  /** The move alone, unless done (or under way). */
  flush(): Promise<void> {
    return (this.done ??= this.run(undefined));
  }

  /** true: the move was still held and went with `state` (the caller's save is done). */
  async withState(state: Record<string, unknown>): Promise<boolean> {
    if (this.done) {
      await this.done;
      return false;
    }
    await (this.done = this.run(state));
    return true;
  }

  async around<T>(publish: () => Promise<T>): Promise<T> {
    try {
      return await withCallGuard(() => this.flush(), publish);
    } finally {
      await this.flush();
    }
  }

  private async run(state: Record<string, unknown> | undefined): Promise<void> {
    if (!(await this.write(state))) throw new TargetMovedError('Target changed');
  }
}

/** A target's outcome as finish writes it. */
type HeldOutcome = Partial<Pick<PostTargetEntity, TargetOutcomeField>> & {
  status: 'success' | 'failed';
};

type HeldOutcomes = [PostTargetEntity, HeldOutcome][];

/** How long a target's outcome waits at most for the post's final move (see holdOutcomes). */
export const OUTCOME_HOLD_MS = 250;

/**
 * The held outcomes of one run's targets (TargetPublisher.holdOutcomes). `take` hands them to the
 * caller's statement; `flush` writes them (one statement), after any write under way; the first
 * held outcome starts a timer that flushes after OUTCOME_HOLD_MS. A flush that fails keeps them
 * held (the final move writes them, or the next flush).
 */
export class OutcomeHold {
  private readonly pending: HeldOutcomes = [];
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (held: HeldOutcomes) => Promise<void>,
    private readonly warn: (err: Error) => void,
  ) {}

  hold(target: PostTargetEntity, outcome: HeldOutcome): void {
    this.pending.push([target, outcome]);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.flush().catch(() => undefined), OUTCOME_HOLD_MS);
      this.timer.unref();
    }
  }

  /** The outcomes held now, no longer held (a write under way finishes first). */
  async take(): Promise<HeldOutcomes> {
    this.stopTimer();
    await this.writing;
    return this.pending.splice(0);
  }

  /** Writes what is held (after any write under way); rejects when that write fails. */
  flush(): Promise<void> {
    this.stopTimer();
    const run = this.writing.then(async () => {
      const held = this.pending.splice(0);
      if (held.length === 0) return;
      try {
        await this.write(held);
      } catch (err) {
        this.pending.unshift(...held);
        this.warn(err as Error);
        throw err;
      }
    });
    this.writing = run.catch(() => undefined);
    return run;
  }

  private stopTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Rows in the order of their ids, as every multi-row write of targets takes their locks. */
const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : 1);

/** The statuses a new run or an outcome moves a target out of. */
const UNSETTLED: TargetStatus[] = ['pending', 'publishing', 'waiting_on_network'];

/** The in-memory target as movePublishing left its row: `publishing`, run n + 1. */
function startRun(target: PostTargetEntity): PostTargetEntity {
  target.status = 'publishing';
  target.attempts += 1;
  return target;
}

/** `<targetId>/<run>` as the run stands when a call is made (movePublishing starts run n + 1). */
function runIdOf(target: PostTargetEntity): () => string {
  return () => `${target.id}/${target.attempts}`;
}
