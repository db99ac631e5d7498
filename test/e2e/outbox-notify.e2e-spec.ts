import { EntityManager } from 'typeorm';
import { OutboxService } from '@/common/outbox/outbox.service';
import { createTenant, eventually, Tenant, TestApp } from '@test/support/test-app';
import {
  WebhookReceiver,
  startAppAndReceiver,
  closeAppAndReceiver,
  subscribeWebhook,
} from '@test/support/webhook-receiver';

/**
 * A committed event wakes the outbox relay (Postgres NOTIFY from the events table's trigger):
 * with the poll ten minutes apart, an event still reaches its receivers (usually within a second
 * or two), also after the listening connection was cut (a Postgres restart). The waits below are
 * bounded well under the poll's ten minutes, so an event that arrives at all was woken by its
 * commit: no upper bound on the delay itself, which a loaded machine stretches.
 */
describe('outbox wake-up on commit', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let tenant: Tenant;

  beforeAll(async () => {
    ({ t, receiver } = await startAppAndReceiver({ env: { OUTBOX_POLL_MS: '600000' } }));
    tenant = await createTenant(t);
    await subscribeWebhook(t, tenant, receiver.url('/woken'), ['account.connected']);
  });
  afterAll(() => closeAppAndReceiver(t, receiver));

  const record = (m: EntityManager, marker: string) =>
    t.app.get(OutboxService).record(m, {
      workspaceId: tenant.workspaceId,
      profileId: tenant.profileId,
      type: 'account.connected',
      actor: { type: 'system', id: null },
      data: { marker },
    });
  const emit = (marker: string) => t.ds.transaction((m) => record(m, marker));

  it('should deliver an event promptly although the relay polls every ten minutes', async () => {
    await emit('first');
    const [hit] = await receiver.waitFor('/woken', 1);
    expect(hit.body.data).toMatchObject({ marker: 'first' });
  });

  it('should deliver nothing for a rolled-back event, and should listen again after its connection is cut', async () => {
    await t.ds
      .transaction(async (m) => {
        await record(m, 'rolled-back');
        throw new Error('roll back');
      })
      .catch(() => undefined);

    const killed = await t.ds.query<{ ok: boolean }[]>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN outbox_events'`,
    );
    expect(killed).toEqual([{ ok: true }]);
    // Listening again (after about a second).
    await eventually(async () => {
      const [row] = await t.ds.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN outbox_events'`,
      );
      return row.n === 1;
    });
    await emit('after-reconnect');
    const hits = await receiver.waitFor('/woken', 2);
    expect(hits[1].body.data).toMatchObject({ marker: 'after-reconnect' });
    expect(hits.map((h) => (h.body.data as { marker: string }).marker)).not.toContain('rolled-back');
  });
});
