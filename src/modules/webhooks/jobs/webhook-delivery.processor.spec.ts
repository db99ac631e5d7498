import type { DataSource } from 'typeorm';
import type { SecretBox } from '@/common/crypto/secret-box';
import type { QueueService } from '@/common/queue/queue.service';
import type { AppConfig } from '@/config/config';
import type { WebhookSender } from '../webhook-sender';
import { WebhookDeliveryProcessor } from './webhook-delivery.processor';
import type { WorkspaceDeliverySlots } from './workspace-delivery-slots';

/**
 * attemptFirst's claims ahead of the lanes, where the database or the clock goes against them.
 * The end-to-end behaviour (real Postgres, Redis and receivers) is in
 * test/e2e/webhooks-first-attempts.e2e-spec.ts; here the statements are answered by hand.
 */
describe('WebhookDeliveryProcessor.attemptFirst: the lanes’ first claims', () => {
  const ids = ['d1', 'd2', 'd3'];
  const claimedRow = (id: string) => ({
    id,
    type: 'post.created',
    payload: {},
    event_created_at: new Date(),
    attempts: 1,
    subscription_id: `s-${id}`,
    url: `http://receiver.test/${id}`,
    secret_enc: 'sealed',
  });

  function setUp(options: { claimMany?: () => Promise<{ rows: unknown[] }>; slotsAfter?: () => void }) {
    const statements: string[] = [];
    const query = jest.fn(async (config: { text: string } | string) => {
      const text = typeof config === 'string' ? config : config.text;
      statements.push(text);
      if (text.includes('d.id = ANY($1::uuid[])') && text.includes('attempts = d.attempts + 1'))
        return options.claimMany ? options.claimMany() : { rows: ids.map(claimedRow), rowCount: ids.length };
      return { rows: [], rowCount: 0 };
    });
    const dataSource = { driver: { master: { query } }, query } as unknown as DataSource;
    const released: number[] = [];
    const slots = {
      tryAcquireMany: jest.fn(async (_workspace: string, wanted: number) => {
        options.slotsAfter?.();
        return Array.from({ length: wanted }, (_, i) => ({ release: async () => void released.push(i) }));
      }),
    } as unknown as WorkspaceDeliverySlots;
    const enqueued: string[] = [];
    const queues = {
      enqueueMany: jest.fn(async (_job: string, items: { payload: { deliveryId: string } }[]) => {
        enqueued.push(...items.map((i) => i.payload.deliveryId));
      }),
    } as unknown as QueueService;
    const sent: string[] = [];
    const sender = {
      send: jest.fn(async (url: string) => (sent.push(url), { ok: true, status: 200, body: 'ok', error: null })),
    } as unknown as WebhookSender;
    const box = { open: () => 'whsec_test' } as unknown as SecretBox;
    const config = { webhooks: { concurrencyPerWorkspace: 4, retryDelaysMs: [60_000] } } as unknown as AppConfig;
    const processor = new WebhookDeliveryProcessor(dataSource, queues, sender, box, config, slots);
    return { processor, statements, released, enqueued, sent };
  }

  const claimsAhead = (statements: string[]) => statements.filter((s) => s.includes('d.id = ANY($1::uuid[])')).length;

  afterEach(() => jest.restoreAllMocks());

  it('sends what the lanes claimed together, one claim statement for all', async () => {
    const { processor, statements, released, enqueued, sent } = setUp({});
    await processor.attemptFirst('w1', ids);
    expect(claimsAhead(statements)).toBe(1);
    expect(statements.filter((s) => s.includes('d.id = $1 AND')).length).toBe(0);
    expect(sent.sort()).toEqual(ids.map((id) => `http://receiver.test/${id}`));
    expect(enqueued).toEqual([]);
    expect(released).toHaveLength(3);
  });

  it('queues every delivery, sends none and frees every slot when the claim statement fails', async () => {
    const { processor, released, enqueued, sent } = setUp({});
    // The failed statement's promise counts the handlers attached to it before any microtask runs:
    // a rejection without one by then is unhandled (and ends a worker under Node's default mode).
    let handlersInTime: number | undefined;
    jest.spyOn(processor as never, 'claimMany').mockImplementation(() => {
      const failed = Promise.reject(new Error('connection terminated'));
      const then = failed.then.bind(failed);
      let handlers = 0;
      failed.then = ((...args: Parameters<typeof then>) => (handlers++, then(...args))) as typeof failed.then;
      queueMicrotask(() => (handlersInTime = handlers));
      return failed as never;
    });
    // With the events to mark: every delivery has its lane, so the outcomes are held for the mark.
    await expect(processor.attemptFirst('w1', ids, ['e1'])).resolves.toBe(false);
    expect(sent).toEqual([]);
    expect(enqueued.sort()).toEqual(ids);
    expect(released).toHaveLength(3);
    expect(handlersInTime).toBe(ids.length);
  });

  it('claims nothing ahead when the window has passed before the lanes start, and queues every delivery', async () => {
    const start = Date.now();
    let now = start;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    // Taking the slots took longer than the fan-out's window (3 s).
    const { processor, statements, enqueued, sent } = setUp({ slotsAfter: () => void (now = start + 4000) });
    await processor.attemptFirst('w1', ids);
    expect(claimsAhead(statements)).toBe(0); // no attempt counted for a delivery that is not sent
    expect(sent).toEqual([]);
    expect(enqueued.sort()).toEqual(ids);
  });

  it('sends what was claimed ahead even when the window passes while the claim statement runs', async () => {
    const start = Date.now();
    let now = start;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const { processor, enqueued, sent } = setUp({
      claimMany: async () => {
        now = start + 4000;
        return { rows: ids.map(claimedRow) };
      },
    });
    await processor.attemptFirst('w1', ids);
    expect(sent).toHaveLength(3); // their attempts were counted: they go out, not to the queue
    expect(enqueued).toEqual([]);
  });
});
