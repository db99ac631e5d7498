import { OutboxRelayService } from '@/common/outbox/outbox-relay.service';
import { OutboxService } from '@/common/outbox/outbox.service';
import { createTenant, eventually, TestApp } from '@test/support/test-app';
import { WebhookReceiver, startAppAndReceiver, closeAppAndReceiver } from '@test/support/webhook-receiver';

/** Redis can restart empty between the relay handing an event over and its fan-out. */
describe('outbox redrive', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    ({ t, receiver } = await startAppAndReceiver());
  });
  afterAll(() => closeAppAndReceiver(t, receiver));

  it('should mark relayed events handled once fanned out', async () => {
    const tenant = await createTenant(t);
    await t
      .http()
      .post('/v1/webhooks')
      .set(tenant.auth)
      .send({ url: receiver.url('/handled'), events: ['*'] })
      .expect(201);
    await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'second' }).expect(201); // an audit-only event
    const rows = await eventually(async () => {
      const r: { type: string; handled: boolean }[] = await t.ds.query(
        `SELECT type, handled_at IS NOT NULL AS handled FROM events WHERE workspace_id = $1`,
        [tenant.workspaceId],
      );
      return r.length > 0 && r.every((x) => x.handled) ? r : undefined;
    });
    expect(rows.map((r) => r.type)).toContain('profile.created');
  });

  it('should deliver an event whose dispatch job was lost after the relay handed it over', async () => {
    const tenant = await createTenant(t);
    await t
      .http()
      .post('/v1/webhooks')
      .set(tenant.auth)
      .send({ url: receiver.url('/lost'), events: ['post.failed'] })
      .expect(201);
    // As if the relay had handed the event to Redis two minutes ago and Redis then lost the job.
    // Written already marked relayed (same transaction), so the live relay never picks it up.
    const event = await t.ds.transaction(async (m) => {
      const e = await t.app.get(OutboxService).record(m, {
        workspaceId: tenant.workspaceId,
        profileId: tenant.profileId,
        type: 'post.failed',
        actor: { type: 'system', id: null },
        data: {
          postId: '00000000-0000-4000-8000-000000000001',
          status: 'failed',
          state: 'failed',
          completedTargets: 0,
          failedTargets: 0,
          results: [],
        },
      });
      await m.query(`UPDATE events SET dispatched_at = now() - interval '2 minutes' WHERE id = $1`, [e.id]);
      return e;
    });
    // On purpose: the event's job is lost, and nothing may deliver it during this second, before the redrive below.
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.at('/lost')).toHaveLength(0);

    expect(await t.app.get(OutboxRelayService).redriveBatch()).toBeGreaterThanOrEqual(1);
    const [got] = await receiver.waitFor('/lost', 1);
    expect(got.body.type).toBe('post.failed');
    expect(got.body.data.profileId).toBe(tenant.profileId);
    await eventually(async () => {
      const [row]: { handled: boolean }[] = await t.ds.query(
        `SELECT handled_at IS NOT NULL AS handled FROM events WHERE id = $1`,
        [event.id],
      );
      return row?.handled;
    });
    // A second redrive finds nothing left to do, and nothing is delivered twice.
    expect(await t.app.get(OutboxRelayService).redriveBatch(200, 0)).toBe(0);
    // On purpose: nothing more may arrive during this window.
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at('/lost')).toHaveLength(1);
  });
});
