import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { connectThroughSandbox } from '@test/support/connect-flow';
import { accountsOf, waitForFinal } from '@test/support/publishing';
import { createTenant, createTestApp, eventually, freePort, TestApp } from '@test/support/test-app';
import { WebhookReceiver } from '@test/support/webhook-receiver';
import { startWorker } from '@test/support/worker-process';

const TOKEN = `op-${randomBytes(16).toString('hex')}`;

/** A sample line of `name` carrying every given label. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const line = text
    .split('\n')
    .find(
      (l) =>
        (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) &&
        Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)),
    );
  return line === undefined ? undefined : Number(line.split(' ').pop());
}

describe('operating it: /metrics, /queues, graceful shutdown', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { OPERATOR_TOKEN: TOKEN } });
  });
  afterAll(async () => t.close());

  const bearer = { Authorization: `Bearer ${TOKEN}` };

  it('should refuse /metrics and /queues without the operator token, and answer with it (Bearer or Basic)', async () => {
    await t.http().get('/metrics').expect(401);
    await t.http().get('/metrics').set({ Authorization: 'Bearer not-the-token-at-all' }).expect(401);
    const res = await t.http().get('/queues').expect(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic/);
    await t.http().get('/metrics').set(bearer).expect(200);
    const basic = `Basic ${Buffer.from(`operator:${TOKEN}`).toString('base64')}`;
    const board = await t.http().get('/queues').set({ Authorization: basic }).expect(200);
    expect(board.text).toMatch(/<html/i);
    const api = await t.http().get('/queues/api/queues').set(bearer).expect(200);
    expect((api.body.queues as { name: string }[]).map((q) => q.name).sort()).toEqual(
      ['events', 'maintenance', 'publish', 'webhooks'].sort(),
    );
  });

  it('should be off without an operator token (the production default)', async () => {
    const plain = await createTestApp();
    try {
      await plain.http().get('/metrics').set(bearer).expect(404);
      await plain.http().get('/queues').set(bearer).expect(404);
    } finally {
      await plain.close();
    }
  });

  it('should count requests by route and status, publish outcomes by network and errorCategory, webhook deliveries, queues and outbox lag', async () => {
    const tenant = await createTenant(t);
    await connectThroughSandbox(t, tenant, 'facebook');
    const [account] = await accountsOf(t, tenant.profileId);
    const receiver = await WebhookReceiver.start();
    try {
      await t
        .http()
        .post('/v1/webhooks')
        .set(tenant.auth)
        .send({ url: receiver.url('/hook'), events: ['post.published', 'post.failed'] })
        .expect(201);
      const ok = await t
        .http()
        .post('/v1/posts')
        .set(tenant.auth)
        .send({ content: `metrics ok ${Date.now()}`, accountIds: [account.id], publishNow: true })
        .expect(201);
      const bad = await t
        .http()
        .post('/v1/posts')
        .set(tenant.auth)
        .send({ content: `metrics #sandbox-fail:facebook ${Date.now()}`, accountIds: [account.id], publishNow: true })
        .expect(201);
      expect(await waitForFinal(t, ok.body.id as string)).toBe('published');
      expect(await waitForFinal(t, bad.body.id as string)).toBe('failed');
      await receiver.waitFor('/hook', 2);

      const text = await eventually(async () => {
        const body = (await t.http().get('/metrics').set(bearer).expect(200)).text;
        return sample(body, 'sps_webhook_deliveries_total', { result: 'success', status_class: '2xx' })
          ? body
          : undefined;
      });
      expect(
        sample(text, 'sps_http_requests_total', { method: 'POST', route: '/v1/posts', status: '201' }),
      ).toBeGreaterThanOrEqual(2);
      expect(sample(text, 'sps_http_request_duration_seconds_count', { route: '/v1/posts' })).toBeGreaterThanOrEqual(2);
      expect(
        sample(text, 'sps_publish_outcomes_total', { network: 'facebook', outcome: 'success', error_category: 'none' }),
      ).toBeGreaterThanOrEqual(1);
      const failed = text
        .split('\n')
        .find((l) => l.startsWith('sps_publish_outcomes_total{') && l.includes('outcome="failed"'));
      expect(failed).toMatch(/network="facebook"/);
      expect(failed).toMatch(/error_category="[a-z_]+"/);
      expect(failed).not.toMatch(/error_category="none"/);
      expect(sample(text, 'sps_webhook_delivery_duration_seconds_count', { result: 'success' })).toBeGreaterThanOrEqual(
        2,
      );
      for (const queue of ['events', 'publish', 'webhooks', 'maintenance']) {
        expect(sample(text, 'sps_queue_jobs', { queue, state: 'waiting' })).toBeGreaterThanOrEqual(0);
        expect(sample(text, 'sps_queue_oldest_waiting_seconds', { queue })).toBeGreaterThanOrEqual(0);
      }
      expect(sample(text, 'sps_outbox_lag_seconds')).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'sps_outbox_pending_events')).toBeGreaterThanOrEqual(0);
    } finally {
      await receiver.close();
    }
  });

  it('should serve the worker role its own /metrics on METRICS_PORT, and drain jobs before the database closes on SIGTERM', async () => {
    // relay-outbox runs every 20 ms, so a SIGTERM lands while jobs are running. The port is free when
    // chosen, but the worker binds it seconds later: should something take it meanwhile (the worker
    // then exits naming METRICS_PORT, as the next test shows), it starts again on another one.
    let port = 0;
    let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
    for (let attempt = 1; !worker; attempt++) {
      port = await freePort();
      const env = { OUTBOX_POLL_MS: '20', OPERATOR_TOKEN: TOKEN, METRICS_PORT: String(port) };
      worker = await startWorker(t, env).catch((err: Error) => {
        if (attempt === 3 || !err.message.includes(`METRICS_PORT ${port}`)) throw err;
        return undefined;
      });
    }
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: bearer });
    expect(metrics.status).toBe(200);
    expect(
      sample(await metrics.text(), 'sps_queue_jobs', { queue: 'publish', state: 'waiting' }),
    ).toBeGreaterThanOrEqual(0);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(401);
    // On purpose, and not a wait for anything checked below: the worker's repeatable jobs get going,
    // so the SIGTERM most likely lands mid-job (the stronger case); the test holds either way.
    await new Promise((r) => setTimeout(r, 1000));
    const exited = new Promise<string>((resolve) =>
      worker.child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)),
    );
    worker.child.kill('SIGTERM');
    // Nest runs the shutdown hooks, then ends the process with the signal it received.
    expect(['SIGTERM', 'exit 0']).toContain(await exited);
    expect(worker.output()).not.toMatch(/Driver not Connected|Connection is closed|Connection terminated|Job failed/i);
  });

  it('should refuse to start the worker, naming METRICS_PORT, when that port is taken', async () => {
    const taken = createServer((socket) => socket.destroy());
    await new Promise<void>((ok) => taken.listen(0, ok));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(startWorker(t, { OPERATOR_TOKEN: TOKEN, METRICS_PORT: String(port) })).rejects.toThrow(
        new RegExp(`exited with 1 before starting:[\\s\\S]*METRICS_PORT ${port}`),
      );
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
