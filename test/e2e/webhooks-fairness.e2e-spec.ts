import { OutboxService } from '@/common/outbox/outbox.service';
import { createTenant, Tenant, TestApp } from '@test/support/test-app';
import { WebhookReceiver, startAppAndReceiver, closeAppAndReceiver } from '@test/support/webhook-receiver';

/**
 * Webhook delivery concurrency per workspace. One tenant's 50 hanging receivers
 * hold at most its own share of delivery slots; another tenant's deliveries still arrive while
 * they hang (not once their time-out frees a slot).
 */
/** Long, so that "before any hanging delivery timed out" holds on a loaded machine too. */
const HANG_TIMEOUT_MS = 30_000;

describe('fan-out fairness', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  /** Hanging deliveries whose sender gave up (timed out), counted as their connections close. */
  let hangsGaveUp = 0;

  beforeAll(async () => {
    ({ t, receiver } = await startAppAndReceiver({
      env: { WEBHOOK_TIMEOUT_MS: String(HANG_TIMEOUT_MS), WEBHOOK_CONCURRENCY_PER_WORKSPACE: '5' },
    }));
    // Never answers: each delivery holds its connection until the time-out.
    receiver.on('/hang', (_hit, res) => new Promise<void>(() => void res.on('close', () => (hangsGaveUp += 1))));
  });
  afterAll(() => closeAppAndReceiver(t, receiver));

  const subscribe = (tenant: Tenant, path: string) =>
    t
      .http()
      .post('/v1/webhooks')
      .set(tenant.auth)
      .send({ url: receiver.url(path), events: ['*'] })
      .expect(201);

  const emit = (tenant: Tenant, type: string) =>
    t.ds.transaction((m) =>
      t.app.get(OutboxService).record(m, {
        workspaceId: tenant.workspaceId,
        profileId: tenant.profileId,
        type,
        actor: { type: 'system', id: null },
        data: {},
      }),
    );

  it("delivers another tenant's events while one tenant's 50 receivers hang", async () => {
    const noisy = await createTenant(t, { plan: 'enterprise' });
    const quiet = await createTenant(t);
    for (let i = 0; i < 50; i++) await subscribe(noisy, '/hang');
    await subscribe(quiet, '/quiet');
    let gaveUpBeforeQuiet: number | undefined;
    let hangsBeforeQuiet: number | undefined;
    receiver.on('/quiet', (_hit, res) => {
      gaveUpBeforeQuiet = hangsGaveUp;
      hangsBeforeQuiet = receiver.at('/hang').length;
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
    });

    await emit(noisy, 'account.connected');
    // The noisy tenant's deliveries are in flight (and hanging) before the quiet tenant's event.
    await receiver.waitFor('/hang', 5);
    await emit(quiet, 'account.connected');
    await receiver.waitFor('/quiet', 1);
    // It did not wait for a slot that a timed-out hanging delivery freed: none had timed out yet
    // when it arrived (an order, not a duration).
    expect(gaveUpBeforeQuiet).toBe(0);
    // The noisy tenant never has more than its share in flight (counted when the quiet delivery
    // arrived, before any hanging one had timed out and been replaced).
    expect(hangsBeforeQuiet).toBeLessThanOrEqual(5);
  }, 90_000);
});
