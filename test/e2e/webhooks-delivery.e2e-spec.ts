import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import { OutboxService } from '@/common/outbox/outbox.service';
import { QueueService } from '@/common/queue/queue.service';
import type { EventEntity } from '@/common/outbox/event.entity';
import type { PostTargetEntity } from '@/modules/posts/entities/post-target.entity';
import { postEventData } from '@/modules/posts/post-events';
import { WebhookFanoutProcessor } from '@/modules/webhooks/jobs/webhook-fanout.processor';
import { WebhookSweepProcessor } from '@/modules/webhooks/jobs/webhook-sweep.processor';
import { verifySignature } from '@/modules/webhooks/webhook-signature';
import { createTenant, eventually, Tenant, TestApp } from '@test/support/test-app';
import {
  ReceivedWebhook,
  WebhookReceiver,
  startAppAndReceiver,
  closeAppAndReceiver,
} from '@test/support/webhook-receiver';

const stripeSignature = new Stripe('sk_test_unused').webhooks.signature!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Delivery {
  id: string;
  eventId: string | null;
  type: string;
  status: string;
  attempts: number;
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  nextAttemptAt: string | null;
  data: Record<string, unknown>;
}

/** Events come from real outbox rows (the posts/connect features write the same rows). */
describe('webhook delivery', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ({ t, receiver } = await startAppAndReceiver({
      env: { WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200,200', WEBHOOK_TIMEOUT_MS: '1500' },
    }));
  });
  afterAll(() => closeAppAndReceiver(t, receiver));

  async function subscribe(
    tenant: Tenant,
    path: string,
    body: Record<string, unknown> = {},
  ): Promise<{ id: string; secret: string }> {
    const res = await t
      .http()
      .post('/v1/webhooks')
      .set(tenant.auth)
      .send({ url: receiver.url(path), events: ['*'], ...body })
      .expect(201);
    return {
      id: res.body.subscription.id as string,
      secret: res.body.secret as string,
    };
  }

  /** A committed outbox row, as a state change writes it. */
  async function emit(
    tenant: Pick<Tenant, 'workspaceId' | 'profileId'>,
    type: string,
    data: Record<string, unknown> = {},
  ): Promise<EventEntity> {
    return t.ds.transaction((m) =>
      t.app.get(OutboxService).record(m, {
        workspaceId: tenant.workspaceId,
        profileId: tenant.profileId,
        type,
        actor: { type: 'system', id: null },
        data,
      }),
    );
  }

  /** `data` of a published post, built by the posts code's own payload builder. */
  function publishedPost(): Record<string, unknown> {
    const postId = randomUUID();
    const target = {
      id: randomUUID(),
      postId,
      accountId: randomUUID(),
      platform: 'facebook',
      pageName: 'Acme Coffee',
      status: 'success',
      externalId: '1234_5678',
      externalUrl: 'https://facebook.example/1234_5678',
      error: null,
      errorCategory: null,
    };
    return postEventData({ id: postId, state: 'published', scheduledAt: null }, [
      target as unknown as PostTargetEntity,
    ]);
  }

  async function deliveries(tenant: Tenant, subId: string, query: Record<string, string> = {}): Promise<Delivery[]> {
    const res = await t.http().get(`/v1/webhooks/${subId}/deliveries`).set(tenant.auth).query(query).expect(200);
    return res.body.deliveries as Delivery[];
  }

  async function deliveryWhere(
    tenant: Tenant,
    subId: string,
    pred: (d: Delivery) => boolean,
    timeoutMs = 45_000,
  ): Promise<Delivery> {
    return eventually(async () => (await deliveries(tenant, subId)).find(pred), { timeoutMs });
  }

  const sig = (hit: ReceivedWebhook) => hit.headers['service-signature'] as string;

  it('should deliver a real event once, signed and shaped as the spec says', async () => {
    const tenant = await createTenant(t);
    const { id: subId, secret } = await subscribe(tenant, '/once', {
      events: ['post.published'],
    });
    const data = publishedPost();
    const event = await emit(tenant, 'post.published', data);
    await emit(tenant, 'post.failed', data); // not subscribed
    await emit(tenant, 'profile.updated', { changed: ['name'] }); // audit-only type

    const [hit] = await receiver.waitFor('/once');
    await sleep(800); // On purpose: a quiet window; nothing more may arrive during it (sent once, the other events never)
    expect(receiver.at('/once')).toHaveLength(1);

    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['user-agent']).toMatch(/^SocialPublishingService-Webhooks\//);
    expect(hit.headers['service-event']).toBe('post.published');
    expect(hit.headers['service-event-id']).toBe(hit.body.id);
    expect(hit.headers['service-delivery-attempt']).toBe('1');
    expect(Object.keys(hit.body)).toEqual(['id', 'type', 'createdAt', 'data']);
    expect(hit.body).toEqual({
      id: expect.any(String),
      type: 'post.published',
      createdAt: event.createdAt.toISOString(),
      data: { ...data, profileId: tenant.profileId },
    });
    expect(hit.body.data).toMatchObject({
      status: 'published',
      state: 'published',
      completedTargets: 1,
      failedTargets: 0,
    });
    expect((hit.body.data.results as unknown[])[0]).toMatchObject({
      platform: 'facebook',
      pageName: 'Acme Coffee',
      status: 'success',
      result: { id: '1234_5678' },
    });

    // An independent implementation (stripe's verifier) and ours both accept the signature.
    expect(sig(hit)).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(stripeSignature.verifyHeader(hit.raw, sig(hit), secret, 300)).toBe(true);
    expect(verifySignature(hit.raw, sig(hit), secret)).toMatchObject({
      ok: true,
    });

    const [record] = await deliveries(tenant, subId);
    expect(record).toMatchObject({
      id: hit.body.id,
      eventId: event.id,
      type: 'post.published',
      status: 'succeeded',
      attempts: 1,
      responseCode: 200,
      responseBody: 'ok',
      error: null,
      nextAttemptAt: null,
    });
  });

  it('should fan out the events committed together in one job, sending each once and marking each handled', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    await subscribe(a, '/batch-a');
    await subscribe(b, '/batch-b');
    const outbox = t.app.get(OutboxService);
    const record = (tenant: Tenant, m: EntityManager, i: number) =>
      outbox.record(m, {
        workspaceId: tenant.workspaceId,
        profileId: tenant.profileId,
        type: 'post.created',
        actor: { type: 'system', id: null },
        data: { postId: randomUUID(), status: 'draft', state: 'draft', n: i },
      });
    // One commit: the relay takes the four events in one batch (two workspaces).
    const events = await t.ds.transaction(async (m) => [
      await record(a, m, 1),
      await record(b, m, 2),
      await record(a, m, 3),
      await record(b, m, 4),
    ]);
    const ids = events.map((e) => e.id);
    await receiver.waitFor('/batch-a', 2);
    await receiver.waitFor('/batch-b', 2);
    await eventually(async () => {
      const [{ n }] = await t.ds.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM events WHERE id = ANY($1) AND handled_at IS NOT NULL`,
        [ids],
      );
      return n === 4 || undefined;
    });
    const jobs = await t.app.get(QueueService).queue('events').getJobs(['completed', 'active', 'waiting']);
    const batch = jobs.filter((j) => ids.some((id) => (j.data as { eventIds?: string[] }).eventIds?.includes(id)));
    expect(batch).toHaveLength(1);
    expect((batch[0].data as { eventIds: string[] }).eventIds).toEqual(expect.arrayContaining(ids));
    await sleep(300); // on purpose: nothing more may arrive during it (each event sent once)
    const received = (path: string) => receiver.at(path).map((h) => h.body.data.n);
    expect({ a: received('/batch-a').sort(), b: received('/batch-b').sort() }).toEqual({ a: [1, 3], b: [2, 4] });
  });

  it('should create one delivery per subscription when the fan-out runs twice', async () => {
    const tenant = await createTenant(t);
    const { id: subId } = await subscribe(tenant, '/twice');
    const event = await emit(tenant, 'post.created', {
      postId: randomUUID(),
      status: 'draft',
      state: 'draft',
    });
    await receiver.waitFor('/twice');
    await t.app.get(WebhookFanoutProcessor).fanOut(event.id);
    await t.app.get(WebhookFanoutProcessor).fanOut(event.id);
    await sleep(500); // On purpose: a quiet window; no second request may arrive during it
    expect(receiver.at('/twice')).toHaveLength(1);
    expect(await deliveries(tenant, subId)).toHaveLength(1);
  });

  it('should re-queue a delivery whose job was lost (Redis flushed) from its database row', async () => {
    const tenant = await createTenant(t);
    const { id: subId } = await subscribe(tenant, '/swept');
    const id = randomUUID();
    // Committed by a fan-out, but the job never made it to (or was lost from) Redis.
    await t.ds.query(
      `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, type, payload, event_created_at, status, updated_at)
       VALUES ($1, $2, $3, $4, 'post.created', $5, now(), 'pending', now() - interval '10 minutes')`,
      [
        id,
        tenant.workspaceId,
        subId,
        randomUUID(),
        JSON.stringify({ profileId: tenant.profileId, postId: 'lost-job' }),
      ],
    );
    await t.app.get(WebhookSweepProcessor).sweep();
    await t.app.get(WebhookSweepProcessor).sweep();
    const [hit] = await receiver.waitFor('/swept');
    expect(hit.body).toMatchObject({ id, type: 'post.created', data: { postId: 'lost-job' } });
    await deliveryWhere(tenant, subId, (d) => d.id === id && d.status === 'succeeded');
    await sleep(300); // On purpose: a quiet window; the two sweeps' jobs may not send it again during it
    expect(receiver.at('/swept')).toHaveLength(1);
  });

  it('should retry a failing receiver 7 times with the same id, then abandon, and redeliver on request', async () => {
    const tenant = await createTenant(t);
    let healthy = false;
    receiver.on('/fail', (_hit, res) => {
      if (healthy) res.writeHead(204).end();
      else res.writeHead(500, { 'Content-Type': 'text/plain' }).end('receiver is down');
    });
    const { id: subId, secret } = await subscribe(tenant, '/fail');
    await emit(tenant, 'post.failed', {
      postId: randomUUID(),
      status: 'failed',
      state: 'failed',
      completedTargets: 0,
      failedTargets: 1,
      results: [],
    });

    const hits = await receiver.waitFor('/fail', 7);
    expect(hits.map((h) => h.headers['service-delivery-attempt'])).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(new Set(hits.map((h) => h.body.id)).size).toBe(1);
    expect(new Set(hits.map((h) => h.headers['service-event-id'])).size).toBe(1);
    for (const h of hits) expect(stripeSignature.verifyHeader(h.raw, sig(h), secret, 300)).toBe(true);
    // The configured delays (200 ms here) separate the attempts.
    for (let i = 1; i < hits.length; i++) expect(hits[i].at - hits[i - 1].at).toBeGreaterThanOrEqual(150);

    const abandoned = await deliveryWhere(tenant, subId, (d) => d.status === 'abandoned');
    expect(abandoned).toMatchObject({
      id: hits[0].body.id,
      attempts: 7,
      responseCode: 500,
      responseBody: 'receiver is down',
      error: 'Receiver answered 500',
      nextAttemptAt: null,
    });
    await sleep(600); // On purpose: a quiet window; no eighth attempt may arrive during it (abandoned)
    expect(receiver.at('/fail')).toHaveLength(7);
    expect(await deliveries(tenant, subId, { status: 'abandoned' })).toHaveLength(1);
    expect(await deliveries(tenant, subId, { status: 'succeeded' })).toHaveLength(0);

    healthy = true;
    const retried = await t
      .http()
      .post(`/v1/webhooks/${subId}/deliveries/${abandoned.id}/retry`)
      .set(tenant.auth)
      .expect(202);
    expect(retried.body.delivery).toMatchObject({
      id: abandoned.id,
      status: 'pending',
    });
    const again = await receiver.waitFor('/fail', 8);
    expect(again[7].body.id).toBe(abandoned.id);
    expect(again[7].headers['service-delivery-attempt']).toBe('8');
    expect(verifySignature(again[7].raw, sig(again[7]), secret)).toMatchObject({ ok: true });
    const done = await deliveryWhere(tenant, subId, (d) => d.status === 'succeeded');
    expect(done).toMatchObject({ attempts: 8, responseCode: 204, error: null });

    // Only failed, abandoned or cancelled deliveries can be redelivered.
    const refused = await t
      .http()
      .post(`/v1/webhooks/${subId}/deliveries/${abandoned.id}/retry`)
      .set(tenant.auth)
      .expect(400);
    expect(refused.body.error.code).toBe('invalid_state_transition');
    await t.http().post(`/v1/webhooks/${subId}/deliveries/${randomUUID()}/retry`).set(tenant.auth).expect(404);
  });

  it('should drop events while paused and deliver new ones after resuming', async () => {
    const tenant = await createTenant(t);
    const { id: subId } = await subscribe(tenant, '/pause');
    await t.http().patch(`/v1/webhooks/${subId}`).set(tenant.auth).send({ isActive: false }).expect(200);
    const whilePaused = await emit(tenant, 'post.created', { postId: 'while-paused' });
    // Its fan-out is done (the event is marked handled) and made no delivery: nothing can send it later.
    await eventually(async () => {
      const [row] = await t.ds.query<{ handled: boolean }[]>(
        'SELECT handled_at IS NOT NULL AS handled FROM events WHERE id = $1',
        [whilePaused.id],
      );
      return row?.handled;
    });
    expect(await deliveries(tenant, subId)).toEqual([]);
    expect(receiver.at('/pause')).toHaveLength(0);

    await t.http().patch(`/v1/webhooks/${subId}`).set(tenant.auth).send({ isActive: true }).expect(200);
    await emit(tenant, 'post.created', { postId: 'after-resume' });
    const [hit] = await receiver.waitFor('/pause');
    await sleep(500); // On purpose: a quiet window; nothing more may arrive during it (the paused event stays dropped)
    expect(receiver.at('/pause')).toHaveLength(1);
    expect(hit.body.data.postId).toBe('after-resume');
    expect((await deliveries(tenant, subId)).map((d) => d.data.postId)).toEqual(['after-resume']);
  });

  it('should cancel a queued retry when the subscription is paused or deleted before it comes up', async () => {
    const tenant = await createTenant(t);
    const paused = await subscribe(tenant, '/pause-midway', {
      events: ['post.cancelled'],
    });
    const deleted = await subscribe(tenant, '/delete-midway', {
      events: ['post.cancelled'],
    });
    receiver.on('/pause-midway', async (_hit, res) => {
      await t.http().patch(`/v1/webhooks/${paused.id}`).set(tenant.auth).send({ isActive: false });
      res.writeHead(503).end();
    });
    receiver.on('/delete-midway', async (_hit, res) => {
      await t.http().delete(`/v1/webhooks/${deleted.id}`).set(tenant.auth);
      res.writeHead(503).end();
    });
    await emit(tenant, 'post.cancelled', {
      postId: randomUUID(),
      status: 'cancelled',
      state: 'cancelled',
    });
    const cancelled = await deliveryWhere(tenant, paused.id, (d) => d.status === 'cancelled');
    expect(cancelled).toMatchObject({ attempts: 1, responseCode: 503 });
    await eventually(async () => {
      const [row] = await t.ds.query<{ status: string; attempts: number }[]>(
        `SELECT status, attempts FROM webhook_deliveries WHERE subscription_id = $1`,
        [deleted.id],
      );
      return row?.status === 'cancelled' && row.attempts === 1;
    });
    await sleep(500); // On purpose: a quiet window; no retry of either may arrive during it
    expect(receiver.at('/pause-midway')).toHaveLength(1);
    expect(receiver.at('/delete-midway')).toHaveLength(1);
  });

  it('should stop verifying with the old secret as soon as it is rotated', async () => {
    const tenant = await createTenant(t);
    const { id: subId, secret: oldSecret } = await subscribe(tenant, '/rotate');
    await emit(tenant, 'post.created', { postId: 'before' });
    const [before] = await receiver.waitFor('/rotate');
    expect(stripeSignature.verifyHeader(before.raw, sig(before), oldSecret, 300)).toBe(true);

    const rotated = await t.http().post(`/v1/webhooks/${subId}/rotate-secret`).set(tenant.auth).expect(200);
    const newSecret = rotated.body.secret as string;
    expect(Object.keys(rotated.body)).toEqual(['secret']);
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);

    await emit(tenant, 'post.created', { postId: 'after' });
    const hits = await receiver.waitFor('/rotate', 2);
    const after = hits[1];
    expect(after.body.data.postId).toBe('after');
    expect(() => stripeSignature.verifyHeader(after.raw, sig(after), oldSecret, 300)).toThrow();
    expect(verifySignature(after.raw, sig(after), oldSecret)).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    expect(stripeSignature.verifyHeader(after.raw, sig(after), newSecret, 300)).toBe(true);
    expect(verifySignature(after.raw, sig(after), newSecret)).toMatchObject({
      ok: true,
    });
  });

  it('should send a synthetic test event with the same shape, headers and signature', async () => {
    const tenant = await createTenant(t);
    const { id: subId, secret } = await subscribe(tenant, '/test-event', {
      events: ['post.created'],
    });
    const res = await t
      .http()
      .post(`/v1/webhooks/${subId}/test`)
      .set(tenant.auth)
      .send({ eventType: 'post.partially_published' })
      .expect(202);
    expect(res.body.delivery).toMatchObject({
      id: expect.any(String),
      subscriptionId: subId,
      eventId: null,
      type: 'post.partially_published',
      status: 'pending',
    });

    const [hit] = await receiver.waitFor('/test-event');
    expect(hit.headers['service-event']).toBe('post.partially_published');
    expect(hit.headers['service-event-id']).toBe(res.body.delivery.id);
    expect(hit.headers['service-delivery-attempt']).toBe('1');
    expect(hit.body).toMatchObject({
      id: res.body.delivery.id,
      type: 'post.partially_published',
      createdAt: expect.any(String),
    });
    expect(hit.body.data).toMatchObject({
      test: true,
      profileId: tenant.profileId,
      postId: expect.any(String),
      status: 'partially_published',
      state: 'partially_published',
      completedTargets: 1,
      failedTargets: 1,
    });
    expect(stripeSignature.verifyHeader(hit.raw, sig(hit), secret, 300)).toBe(true);
    await deliveryWhere(tenant, subId, (d) => d.id === res.body.delivery.id && d.status === 'succeeded');

    // A paused subscription cannot be tested.
    await t.http().patch(`/v1/webhooks/${subId}`).set(tenant.auth).send({ isActive: false }).expect(200);
    const paused = await t
      .http()
      .post(`/v1/webhooks/${subId}/test`)
      .set(tenant.auth)
      .send({ eventType: 'post.created' })
      .expect(400);
    expect(paused.body.error.code).toBe('invalid_state_transition');
  });

  it("should give an 'account' scope subscription every profile's events, tagged with profileId", async () => {
    const tenant = await createTenant(t);
    const other = await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Second brand' }).expect(201);
    const second = {
      workspaceId: tenant.workspaceId,
      profileId: other.body.profile.id as string,
    };
    await subscribe(tenant, '/account', {
      scope: 'account',
      events: ['post.published'],
    });
    await subscribe(tenant, '/profile-only', { events: ['post.published'] });
    const stranger = await createTenant(t);

    await emit(second, 'post.published', { postId: 'second-profile' });
    await emit(stranger, 'post.published', { postId: 'other-workspace' });
    const [hit] = await receiver.waitFor('/account');
    expect(hit.body.data).toMatchObject({
      postId: 'second-profile',
      profileId: second.profileId,
    });

    await emit(tenant, 'post.published', { postId: 'home-profile' });
    const hits = await receiver.waitFor('/account', 2);
    const [own] = await receiver.waitFor('/profile-only');
    expect(hits[1].body.data).toMatchObject({
      postId: 'home-profile',
      profileId: tenant.profileId,
    });
    expect(own.body.data).toMatchObject({
      postId: 'home-profile',
      profileId: tenant.profileId,
    });
    await sleep(600); // On purpose: a quiet window; nothing more may arrive during it (the other workspace's event never)
    expect(receiver.at('/account')).toHaveLength(2);
    expect(receiver.at('/profile-only')).toHaveLength(1);
  });

  it('should deliver every catalogue type to a wildcard subscription, and no audit-only type', async () => {
    const tenant = await createTenant(t);
    const { id: subId } = await subscribe(tenant, '/wild');
    await t
      .http()
      .patch(`/v1/webhooks/${subId}`)
      .set(tenant.auth)
      .send({ url: receiver.url('/wild') })
      .expect(200); // webhook.updated: audit only
    await emit(tenant, 'comment.received', {
      comment: { id: 'c1', text: 'Nice!' },
    });
    await emit(tenant, 'connection.completed', {
      accounts: [{ id: 'a1', platform: 'facebook' }],
    });
    await emit(tenant, 'api_key.created', { id: 'k1' });
    await emit(tenant, 'approval.rejected', {
      postId: 'p1',
      status: 'rejected',
      state: 'rejected',
    });
    const hits = await receiver.waitFor('/wild', 3);
    await sleep(600); // On purpose: a quiet window; no fourth (audit-only) type may arrive during it
    expect(
      receiver
        .at('/wild')
        .map((h) => h.body.type)
        .sort(),
    ).toEqual(['approval.rejected', 'comment.received', 'connection.completed']);
    expect(hits.find((h) => h.body.type === 'connection.completed')!.body.data.accounts).toEqual([
      { id: 'a1', platform: 'facebook' },
    ]);
  });

  it('should keep only the first 2000 bytes of a large (even endless) response body', async () => {
    const tenant = await createTenant(t);
    receiver.on('/big', (_hit, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
      // 1999 ASCII bytes, then a two-byte character straddling the limit, then a stream that never ends.
      res.write('a'.repeat(1999) + 'é' + 'b'.repeat(100_000));
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('c'.repeat(10_000))), 20);
      res.on('close', () => clearInterval(timer));
    });
    receiver.on('/big-error', (_hit, res) => {
      res.writeHead(500).end('E'.repeat(50_000));
    });
    const big = await subscribe(tenant, '/big', { events: ['post.created'] });
    const bigError = await subscribe(tenant, '/big-error', {
      events: ['post.created'],
    });
    await emit(tenant, 'post.created', { postId: 'large' });

    const ok = await deliveryWhere(tenant, big.id, (d) => d.status === 'succeeded');
    expect(ok.responseBody).toBe('a'.repeat(1999));
    const failed = await deliveryWhere(tenant, bigError.id, (d) => d.attempts >= 1 && d.responseCode === 500);
    expect(failed.responseBody).toBe('E'.repeat(2000));
    await t.http().patch(`/v1/webhooks/${bigError.id}`).set(tenant.auth).send({ isActive: false }).expect(200);
  });

  it('should not follow redirects: a 3xx is a failed attempt', async () => {
    const tenant = await createTenant(t);
    receiver.on('/redirect', (_hit, res) => {
      res.writeHead(302, { Location: receiver.url('/redirect-target') }).end();
    });
    const { id: subId } = await subscribe(tenant, '/redirect', {
      events: ['post.scheduled'],
    });
    await emit(tenant, 'post.scheduled', {
      postId: 'r1',
      status: 'scheduled',
      state: 'scheduled',
    });
    const failed = await deliveryWhere(tenant, subId, (d) => d.responseCode === 302);
    expect(failed.error).toMatch(/^Redirect 302 not followed/);
    expect(['failed', 'abandoned']).toContain(failed.status);
    await t.http().patch(`/v1/webhooks/${subId}`).set(tenant.auth).send({ isActive: false }).expect(200);
    await sleep(300); // On purpose: a quiet window; the redirect's target may not be called during it
    expect(receiver.at('/redirect-target')).toHaveLength(0);
  });

  it('should not let a hanging receiver hold up other deliveries, and time it out', async () => {
    const tenant = await createTenant(t);
    // The hanging request never answers; its connection closes when the sender gives up on it.
    let hangGaveUp = false;
    receiver.on('/hang', (_hit, res) => void res.on('close', () => (hangGaveUp = true)));
    let fastWhileHanging: boolean | undefined;
    receiver.on('/fast', (_hit, res) => {
      fastWhileHanging = !hangGaveUp;
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    });
    const hang = await subscribe(tenant, '/hang', { events: ['post.created'] });
    await subscribe(tenant, '/fast', { events: ['post.created'] });
    await emit(tenant, 'post.created', { postId: 'h1' });
    await receiver.waitFor('/fast');
    await receiver.waitFor('/hang');
    // Delivered before the hanging one timed out, not after it (an order, not a duration).
    expect(fastWhileHanging).toBe(true);

    const timedOut = await deliveryWhere(tenant, hang.id, (d) => d.attempts >= 1 && d.error !== null);
    expect(timedOut).toMatchObject({
      responseCode: null,
      error: 'Timed out after 1500 ms',
    });
    await t.http().patch(`/v1/webhooks/${hang.id}`).set(tenant.auth).send({ isActive: false }).expect(200);
  });
});
