import { startWorker } from '@test/support/worker-process';
import { createTestApp, TestApp } from '@test/support/test-app';

describe('operating it: graceful shutdown', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('should drain jobs before the database closes on SIGTERM (no "Driver not Connected")', async () => {
    // relay-outbox runs every 20 ms, so a SIGTERM lands while jobs are running.
    const worker = await startWorker(t, { OUTBOX_POLL_MS: '20', LOG_LEVEL: 'warn' });
    await new Promise((r) => setTimeout(r, 1500));
    const exited = new Promise<string>((resolve) =>
      worker.child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`)),
    );
    worker.child.kill('SIGTERM');
    // Nest runs the shutdown hooks, then ends the process with the signal it received.
    expect(['SIGTERM', 'exit 0']).toContain(await exited);
    expect(worker.output()).not.toMatch(/Driver not Connected|Connection is closed|Connection terminated|Job failed/i);
  });
});
