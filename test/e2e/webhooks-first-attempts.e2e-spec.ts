import { setTimeout as sleep } from 'node:timers/promises';
import { OutboxService } from '@/common/outbox/outbox.service';
import { QueueService } from '@/common/queue/queue.service';
import { WebhookFanoutProcessor } from '@/modules/webhooks/jobs/webhook-fanout.processor';
import { createTenant, eventually, TestApp } from '@test/support/test-app';
import { WebhookReceiver, startAppAndReceiver, closeAppAndReceiver } from '@test/support/webhook-receiver';

/**
 * The fan-out sends an event's first attempts itself, within the workspace's share of deliveries
 * in flight, and queues jobs only for the retries, on the configured schedule.
 */
describe('webhook first attempts', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    ({ t, receiver } = await startAppAndReceiver({
      env: { WEBHOOK_RETRY_DELAYS_MS: '60000,60000,60000,60000,60000,60000', WEBHOOK_CONCURRENCY_PER_WORKSPACE: '4' },
    }));
  });
  afterAll(() => closeAppAndReceiver(t, receiver));

  it('should send every first attempt within the share, record each, and queue retries only for the failures', async () => {
    const tenant = await createTenant(t, { plan: 'enterprise' });
    let inFlight = 0;
    let most = 0;
    // The first answers wait until four requests are in flight (for at most 10 s), so the four lanes
    // are seen at once even when a loaded machine spreads their first requests over more than 100 ms.
    let lanesFull = (): void => undefined;
    const full = new Promise<void>((r) => (lanesFull = r));
    const ac = new AbortController();
    let lanesSeen: Promise<unknown> | undefined;
    const paths = [...Array.from({ length: 9 }, (_, i) => `/first/ok/${i}`), '/first/down/0', '/first/down/1'];
    for (const path of paths) {
      receiver.on(path, async (_hit, res) => {
        most = Math.max(most, ++inFlight);
        if (inFlight === 4) lanesFull();
        await (lanesSeen ??= Promise.race([
          full,
          sleep(10_000, undefined, { signal: ac.signal }).catch(() => undefined),
        ]));
        await sleep(100);
        inFlight -= 1;
        if (path.includes('/down/')) res.writeHead(500).end('down');
        else res.writeHead(200).end('ok');
      });
      await t
        .http()
        .post('/v1/webhooks')
        .set(tenant.auth)
        .send({ url: receiver.url(path), events: ['*'] })
        .expect(201);
    }
    await t.ds.transaction((m) =>
      t.app.get(OutboxService).record(m, {
        workspaceId: tenant.workspaceId,
        profileId: tenant.profileId,
        type: 'account.connected',
        actor: { type: 'system', id: null },
        data: {},
      }),
    );

    const rows = await eventually(async () => {
      const r = await t.ds.query<{ id: string; url: string; status: string; attempts: number; next_in: number }[]>(
        `SELECT d.id, s.url, d.status, d.attempts,
                extract(epoch FROM d.next_attempt_at - now()) AS next_in
           FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
          WHERE d.workspace_id = $1 AND d.status <> 'pending'`,
        [tenant.workspaceId],
      );
      return r.length === paths.length ? r : undefined;
    });
    ac.abort();
    for (const path of paths) expect(receiver.at(path)).toHaveLength(1);
    // Four lanes, never more than four at once.
    expect(most).toBe(4);
    for (const r of rows) {
      expect(r.attempts).toBe(1);
      if (r.url.includes('/down/')) {
        expect(r.status).toBe('failed');
        expect(Number(r.next_in)).toBeGreaterThan(50);
      } else expect(r.status).toBe('succeeded');
    }

    // The retries' jobs: one per failed delivery, after the first delay, with the six attempts left.
    const failed = rows.filter((r) => r.status === 'failed').map((r) => r.id);
    const jobs = await eventually(async () => {
      const all = await t.app.get(QueueService).queue('webhooks').getJobs(['delayed', 'waiting', 'completed']);
      const mine = all.filter((j) => j.data.workspaceId === tenant.workspaceId);
      return mine.length >= failed.length ? mine : undefined;
    });
    expect(jobs.map((j) => j.id).sort()).toEqual([...failed].sort());
    for (const j of jobs) {
      expect(await j.getState()).toBe('delayed');
      expect(j.opts.attempts).toBe(6);
      expect(j.data).toMatchObject({ attemptsBefore: 1 });
    }
  });

  it('should send the first attempts to active subscriptions and cancel, unsent, the one whose subscription was paused since an earlier run', async () => {
    const tenant = await createTenant(t, { plan: 'enterprise' });
    const subscribe = async (path: string): Promise<string> =>
      (
        await t
          .http()
          .post('/v1/webhooks')
          .set(tenant.auth)
          .send({ url: receiver.url(path), events: ['*'] })
          .expect(201)
      ).body.subscription.id as string;
    const active = [await subscribe('/together/0'), await subscribe('/together/1')];
    const paused = await subscribe('/together/paused');
    // An event the relay does not hand out (dispatched and handled already): fanned out by hand below.
    const [event] = await t.ds.query<{ id: string; created_at: Date }[]>(
      `INSERT INTO events (workspace_id, profile_id, type, actor, data, dispatched_at, handled_at)
       VALUES ($1, $2, 'account.connected', '{"type":"system","id":null}', '{}', now(), now())
       RETURNING id, created_at`,
      [tenant.workspaceId, tenant.profileId],
    );
    // An earlier run's delivery of it to `paused`, still pending; the subscription paused since.
    await t.ds.query(
      `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, type, payload, event_created_at, status)
       VALUES (gen_random_uuid(), $1, $2, $3, 'account.connected', '{}', $4, 'pending')`,
      [tenant.workspaceId, paused, event.id, event.created_at],
    );
    await t.http().patch(`/v1/webhooks/${paused}`).set(tenant.auth).send({ isActive: false }).expect(200);

    // Three deliveries, three lanes of the four: their claims start together.
    expect(await t.app.get(WebhookFanoutProcessor).fanOut(event.id)).toBe(3);
    const rows = await t.ds.query<
      { subscription_id: string; status: string; attempts: number; error: string | null }[]
    >(`SELECT subscription_id, status, attempts, error FROM webhook_deliveries WHERE event_id = $1`, [event.id]);
    const bySubscription = new Map(rows.map((r) => [r.subscription_id, r]));
    for (const [i, id] of active.entries()) {
      expect(bySubscription.get(id)).toMatchObject({ status: 'succeeded', attempts: 1 });
      const hits = receiver.at(`/together/${i}`);
      expect(hits).toHaveLength(1);
      expect(hits[0].headers['service-delivery-attempt']).toBe('1');
    }
    expect(bySubscription.get(paused)).toMatchObject({
      status: 'cancelled',
      attempts: 0,
      error: 'Subscription paused before the attempt',
    });
    expect(receiver.at('/together/paused')).toHaveLength(0);
  });
});
