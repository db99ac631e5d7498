import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { JOB_NAMES, JOB_QUEUE, PERIODIC_JOBS } from '@/common/queue/jobs';
import { QueueService } from '@/common/queue/queue.service';
import { createTestApp, eventually, TestApp } from '@test/support/test-app';

const SRC = join(__dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every job name has a `@JobHandler` in a `jobs/` folder, and every periodic job has its scheduler in Redis. */
describe('jobs and their handlers', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('should have a handler for every job name', () => {
    expect(t.app.get(QueueService).unhandledJobs()).toEqual([]);
    expect(JOB_NAMES.length).toBeGreaterThanOrEqual(15);
  });

  it('should keep every @JobHandler in a jobs/ folder of its module', () => {
    const handlers = sourceFiles(SRC)
      .filter((f) => /^\s*@JobHandler\(/m.test(readFileSync(f, 'utf8')))
      .map((f) => relative(SRC, f));
    expect(handlers.length).toBeGreaterThanOrEqual(10);
    expect(handlers.filter((f) => !/(^|\/)jobs\/[\w-]+\.(job|processor)\.ts$/.test(f))).toEqual([]);
  });

  it('should run every periodic job on the interval declared in PERIODIC_JOBS', async () => {
    const queues = t.app.get(QueueService);
    for (const [job, every] of Object.entries(PERIODIC_JOBS)) {
      const scheduler = await eventually(() =>
        queues.queue(JOB_QUEUE[job as keyof typeof JOB_QUEUE]).getJobScheduler(`every:${job}`),
      );
      expect({ job, every: Number(scheduler?.every) }).toEqual({ job, every: every(t.config) });
    }
  });
});
