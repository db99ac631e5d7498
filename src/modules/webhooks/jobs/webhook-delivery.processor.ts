import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DelayedError, Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { SecretBox } from '@/common/crypto/secret-box';
import { markHandledSql } from '@/common/outbox/outbox-relay.service';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import type { JobPayloads } from '@/common/queue/jobs';
import { QueueService } from '@/common/queue/queue.service';
import { AppConfig } from '@/config/config';
import { preparedQuery } from '@/database/plain-query';
import { DeliveryStatus, WebhookDeliveryEntity } from '../entities/webhook-delivery.entity';
import { WebhookSender } from '../webhook-sender';
import { signatureHeader, SIGNATURE_HEADER } from '../webhook-signature';
import { DELIVERY_ATTEMPTS, deliveryJobOptions, WEBHOOK_BACKOFF } from './webhook-jobs';
import { DeliverySlot, WorkspaceDeliverySlots } from './workspace-delivery-slots';

/** How long a delivery whose workspace has no free slot waits before it is tried again (plus jitter). */
const SLOT_RETRY_MS = 250;
/**
 * How long a fan-out keeps sending first attempts itself; what comes up later is queued as jobs,
 * so a fan-out job lasts at most this plus one receiver time-out.
 */
const FIRST_ATTEMPTS_WINDOW_MS = 3000;
/** A first attempt: none made before it, the whole schedule ahead. */
const FIRST_ATTEMPT: AttemptCount = { made: 0, allowed: DELIVERY_ATTEMPTS };
/** addBulk chunk: one round trip to Redis each. */
const ENQUEUE_CHUNK = 500;

export const USER_AGENT = 'SocialPublishingService-Webhooks/1.0';

/** What a receiver gets: the envelope of the spec (Events → Envelope). */
export function envelopeOf(d: Pick<WebhookDeliveryEntity, 'id' | 'type' | 'eventCreatedAt' | 'payload'>): {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
} {
  return {
    id: d.id,
    type: d.type,
    createdAt: d.eventCreatedAt.toISOString(),
    data: d.payload,
  };
}

/** Thrown to hand a failed attempt to BullMQ's retry schedule. */
export class DeliveryAttemptFailed extends Error {
  override readonly name = 'DeliveryAttemptFailed';
}

/**
 * `deliver-webhook`: one attempt of one delivery. Reloads the delivery and its subscription
 * (paused or deleted → `cancelled`, nothing sent), signs afresh with the current secret, POSTs,
 * records the outcome and throws on failure so BullMQ applies the retry schedule
 * (`attempts: 7`, custom backoff from config.webhooks.retryDelaysMs).
 */
@Injectable()
export class WebhookDeliveryProcessor implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');

  constructor(
    private readonly dataSource: DataSource,
    private readonly queues: QueueService,
    private readonly sender: WebhookSender,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
    private readonly slots: WorkspaceDeliverySlots,
  ) {}

  onModuleInit(): void {
    const delays = this.config.webhooks.retryDelaysMs;
    // BullMQ passes the number of attempts made so far (1 after the first failure).
    // A job queued after a first attempt sent by the fan-out counts that attempt too (attemptsBefore).
    this.queues.registerBackoff(
      WEBHOOK_BACKOFF,
      (attemptsMade, _err, job) => delays[Math.min(attemptsMade + attemptsBefore(job.data), delays.length) - 1] ?? 0,
    );
    // A receiver that hangs holds one slot for at most the time-out; keep plenty of slots.
    this.queues.configureQueue('webhooks', { concurrency: 50 });
  }

  @JobHandler('deliver-webhook')
  onDeliverWebhook(
    { deliveryId, workspaceId }: JobPayloads['deliver-webhook'],
    job: Job<JobPayloads['deliver-webhook']>,
    token?: string,
  ): Promise<unknown> {
    return this.attemptFairly(deliveryId, workspaceId, job, token);
  }

  /**
   * The first attempts of a fan-out, sent by the fan-out job itself: no queue round trips per
   * delivery, and as many in flight as the workspace's share has free (each lane holds a slot, as
   * a queued attempt does, so the share still bounds the workspace across every worker; the
   * lanes' slots are taken in one round trip). With no slot free (the share is taken elsewhere),
   * or once FIRST_ATTEMPTS_WINDOW_MS has passed, the rest are queued as `deliver-webhook` jobs,
   * the usual path. A failed first attempt is queued for its retry after the first configured
   * delay, with the attempts it has left. Nothing is lost to a crash meanwhile: the deliveries are
   * rows already, still `pending` until attempted, and the fan-out job (not yet marked handled)
   * runs again.
   *
   * `handledEventIds`: the events of the fan-out, marked handled in the statement that records
   * the outcomes when every delivery went out at once (each its own lane: the usual case, a few
   * subscriptions) and nothing is left to queue (answers true; otherwise false and the caller
   * marks them).
   */
  async attemptFirst(workspaceId: string, deliveryIds: string[], handledEventIds?: string[]): Promise<boolean> {
    const deadline = Date.now() + FIRST_ATTEMPTS_WINDOW_MS;
    const queued: string[] = [];
    const retries: string[] = [];
    const slots = await this.slots.tryAcquireMany(
      workspaceId,
      Math.min(deliveryIds.length, this.config.webhooks.concurrencyPerWorkspace),
    );
    // Outcomes are written in batches while the lanes go on sending (one UPDATE per batch); when
    // every delivery has its own lane they are held to the end, written with the events' handled mark.
    const outcomes = new OutcomeWriter((rows) => this.writeOutcomes(rows));
    const hold = handledEventIds !== undefined && slots.length === deliveryIds.length;
    const held: DeliveryOutcome[] = [];
    const record = hold ? (o: DeliveryOutcome) => void held.push(o) : (o: DeliveryOutcome) => outcomes.add(o);
    // Lane i starts with delivery i, then takes the next one not yet taken. The lanes' first claims
    // are one statement, as their slots were one round trip (with a lane per delivery, the usual
    // case, that is every claim); a lane's later claims are its own, so no lane waits for another's.
    // A delivery claimed ahead is sent whatever the clock says next: its attempt is counted.
    const ahead =
      slots.length > 1 && Date.now() < deadline ? this.claimMany(deliveryIds.slice(0, slots.length)) : undefined;
    let next = slots.length;
    // A lane sends one delivery after another within its slot: its lease (twice the receiver
    // time-out plus 5 s) outlives the window plus the last attempt's time-out.
    const lane = async (slot: DeliverySlot, first: number) => {
      try {
        for (let index = first; index < deliveryIds.length; index = next++) {
          const id = deliveryIds[index];
          const claiming = index === first ? ahead?.then((c) => c.get(id)) : undefined;
          if (!claiming && Date.now() >= deadline) {
            queued.push(id);
            continue;
          }
          try {
            await this.attempt(id, FIRST_ATTEMPT, record, claiming);
          } catch (err) {
            // Not sent or not recorded (the database refused): the queued job tries it again.
            (err instanceof DeliveryAttemptFailed ? retries : queued).push(id);
          }
        }
      } finally {
        await slot.release();
      }
    };
    if (slots.length === 0) queued.push(...deliveryIds);
    await Promise.all(slots.map((slot, i) => lane(slot, i)));
    let handled = false;
    if (held.length > 0 && queued.length === 0 && retries.length === 0) {
      // Sent and settled (succeeded, or abandoned): their outcomes and the events' mark together.
      handled = await this.writeOutcomes(held, handledEventIds).then(
        () => true,
        () => (queued.push(...held.map((o) => o.id)), false), // not recorded: still pending (attempt counted), their jobs send them again
      );
    } else for (const o of held) outcomes.add(o);
    await outcomes.flushed();
    // An outcome the database refused: still `pending` (attempt counted), its job sends it again.
    const unrecorded = new Set(outcomes.unrecorded);
    queued.push(...unrecorded);
    const firstDelay = this.config.webhooks.retryDelaysMs[0] ?? 0;
    const jobs = [
      ...queued.map((deliveryId) => ({ payload: { deliveryId, workspaceId }, opts: deliveryJobOptions(deliveryId) })),
      ...retries
        .filter((id) => !unrecorded.has(id))
        .map((deliveryId) => ({
          payload: { deliveryId, workspaceId, attemptsBefore: 1 },
          opts: { ...deliveryJobOptions(deliveryId), attempts: DELIVERY_ATTEMPTS - 1, delay: firstDelay },
        })),
    ];
    for (let i = 0; i < jobs.length; i += ENQUEUE_CHUNK)
      await this.queues.enqueueMany('deliver-webhook', jobs.slice(i, i + ENQUEUE_CHUNK));
    return handled;
  }

  /**
   * One attempt within the workspace's share of deliveries in flight. When the share is taken,
   * the job goes back to the queue for a moment (no attempt counted, no worker slot held), so one
   * tenant's hanging receivers cannot delay the other tenants' deliveries. The workspace comes
   * with the job (jobs queued before it did are looked up).
   */
  async attemptFairly(
    deliveryId: string,
    workspaceId: string | undefined,
    job: Job,
    token: string | undefined,
  ): Promise<void> {
    let workspace = workspaceId;
    if (!workspace) {
      const [row] = await this.dataSource.query<{ workspace_id: string }[]>(
        `SELECT workspace_id FROM webhook_deliveries WHERE id = $1`,
        [deliveryId],
      );
      if (!row) return;
      workspace = row.workspace_id;
    }
    const slot = await this.slots.tryAcquire(workspace);
    if (!slot) {
      await job.moveToDelayed(Date.now() + SLOT_RETRY_MS + Math.floor(Math.random() * SLOT_RETRY_MS), token);
      throw new DelayedError();
    }
    try {
      // A job queued after the fan-out's own first attempt carries it in attemptsBefore.
      const before = attemptsBefore(job.data);
      await this.attempt(deliveryId, { made: before + job.attemptsMade, allowed: before + (job.opts.attempts ?? 1) });
    } finally {
      await slot.release();
    }
  }

  /**
   * Two round trips to Postgres per attempt at most: the claim (which also reads the delivery and
   * its subscription; `claiming` when it was taken with others) and the outcome (`record`: written
   * at once, or handed to a batch).
   */
  async attempt(
    deliveryId: string,
    count: AttemptCount,
    record: (outcome: DeliveryOutcome) => Promise<void> | void = (o) => this.writeOutcomes([o]),
    claiming: Promise<ClaimedDelivery | undefined> = this.claim(deliveryId),
  ): Promise<void> {
    // Count the attempt before sending, so the header and the record agree even after a crash;
    // only a pending or failed delivery of an active subscription is claimed.
    const claimed = await claiming;
    if (!claimed) {
      // Paused or deleted subscription: cancelled, nothing sent (a delivery already final stays as it is).
      await this.dataSource.query(
        `UPDATE webhook_deliveries d
            SET status = 'cancelled', next_attempt_at = NULL, updated_at = now(),
                error = CASE WHEN s.id IS NULL OR s.deleted_at IS NOT NULL
                             THEN 'Subscription deleted before the attempt'
                             ELSE 'Subscription paused before the attempt' END
           FROM webhook_deliveries o
           LEFT JOIN webhook_subscriptions s ON s.id = o.subscription_id AND s.workspace_id = o.workspace_id
          WHERE d.id = $1 AND o.id = d.id AND d.status IN ('pending', 'failed')
            AND (s.id IS NULL OR s.deleted_at IS NOT NULL OR NOT s.is_active)`,
        [deliveryId],
      );
      return;
    }
    const attempt = claimed.attempts;
    const rawBody = JSON.stringify(
      envelopeOf({
        id: claimed.id,
        type: claimed.type,
        eventCreatedAt: claimed.event_created_at,
        payload: claimed.payload,
      }),
    );
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [SIGNATURE_HEADER]: signatureHeader(this.box.open(claimed.secret_enc), rawBody),
      'Service-Event': claimed.type,
      'Service-Event-Id': claimed.id,
      'Service-Delivery-Attempt': String(attempt),
    };
    const result = await this.sender.send(claimed.url, rawBody, headers);

    const last = !result.ok && count.made + 1 >= count.allowed;
    const delay = this.config.webhooks.retryDelaysMs[count.made] ?? 0;
    await record({
      id: claimed.id,
      status: result.ok ? 'succeeded' : last ? 'abandoned' : 'failed',
      responseCode: result.status,
      responseBody: result.body,
      error: result.ok ? null : result.error,
      nextAttemptAt: result.ok || last ? null : new Date(Date.now() + delay),
    });
    if (result.ok) return;
    if (last)
      this.logger.warn(
        { deliveryId: claimed.id, subscriptionId: claimed.subscription_id, attempts: attempt },
        'Webhook delivery abandoned',
      );
    throw new DeliveryAttemptFailed(
      `Delivery ${claimed.id} attempt ${attempt} failed: ${result.error ?? 'unknown error'}`,
    );
  }

  /** Attempts' outcomes, in one statement however many; with `handledEventIds`, the events marked handled in it too. */
  private async writeOutcomes(rows: DeliveryOutcome[], handledEventIds?: string[]): Promise<void> {
    const update = `UPDATE webhook_deliveries d
          SET status = o.status, response_code = o.response_code, response_body = o.response_body, error = o.error,
              next_attempt_at = o.next_attempt_at, updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::int[], $4::text[], $5::text[], $6::timestamptz[])
              AS o(id, status, response_code, response_body, error, next_attempt_at)
        WHERE d.id = o.id`;
    await preparedQuery(
      this.dataSource,
      handledEventIds ? `WITH outcomes AS (${update}) ${markHandledSql('$7')}` : update,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.status),
        rows.map((r) => r.responseCode),
        rows.map((r) => r.responseBody),
        rows.map((r) => r.error),
        rows.map((r) => r.nextAttemptAt),
        ...(handledEventIds ? [handledEventIds] : []),
      ],
    );
  }

  /** The claim of one attempt, or undefined when the delivery is not claimable. */
  private async claim(deliveryId: string): Promise<ClaimedDelivery | undefined> {
    const { rows } = await preparedQuery<ClaimedDelivery>(this.dataSource, claimSql('d.id = $1'), [deliveryId]);
    return rows[0];
  }

  /**
   * Several attempts' claims in one statement, by delivery: a delivery not claimable (final, or
   * its subscription paused or deleted) is not in the map.
   */
  private async claimMany(deliveryIds: string[]): Promise<Map<string, ClaimedDelivery>> {
    const { rows } = await preparedQuery<ClaimedDelivery>(this.dataSource, claimSql('d.id = ANY($1::uuid[])'), [
      deliveryIds,
    ]);
    return new Map(rows.map((r) => [r.id, r]));
  }
}

/**
 * An attempt counted before it is sent: only a pending or failed delivery of an active
 * subscription is claimed; it reads the delivery and its subscription too.
 */
function claimSql(deliveries: string): string {
  return `UPDATE webhook_deliveries d SET attempts = d.attempts + 1, last_attempt_at = now(), updated_at = now()
            FROM webhook_subscriptions s
           WHERE ${deliveries} AND d.status IN ('pending', 'failed')
             AND s.id = d.subscription_id AND s.workspace_id = d.workspace_id AND s.deleted_at IS NULL AND s.is_active
       RETURNING d.id, d.type, d.payload, d.event_created_at, d.attempts, s.id AS subscription_id, s.url, s.secret_enc`;
}

/** Where an attempt stands in its delivery's schedule: attempts made before it, and how many there may be. */
interface AttemptCount {
  made: number;
  allowed: number;
}

/** What one attempt wrote on its delivery. */
interface DeliveryOutcome {
  id: string;
  status: DeliveryStatus;
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  nextAttemptAt: Date | null;
}

/**
 * Outcomes written in batches: the first goes at once, and those that arrive while a batch is
 * being written make the next one. A batch the database refuses leaves its ids in `unrecorded`.
 */
class OutcomeWriter {
  readonly unrecorded: string[] = [];
  private waiting: DeliveryOutcome[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly write: (rows: DeliveryOutcome[]) => Promise<void>) {}

  add(outcome: DeliveryOutcome): void {
    this.waiting.push(outcome);
    this.writing ??= this.drain();
  }

  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const rows = this.waiting;
      this.waiting = [];
      await this.write(rows).catch(() => this.unrecorded.push(...rows.map((r) => r.id)));
    }
    this.writing = null;
  }
}

/** Attempts made before the job was queued (a fan-out's first attempt), from its payload. */
function attemptsBefore(data: unknown): number {
  return (data as Partial<JobPayloads['deliver-webhook']> | undefined)?.attemptsBefore ?? 0;
}

interface ClaimedDelivery {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  event_created_at: Date;
  attempts: number;
  subscription_id: string;
  url: string;
  secret_enc: string;
}
