import {
  BeforeApplicationShutdown,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { Job, JobsOptions, MinimalJob, Queue, Worker } from 'bullmq';
import { AppConfig } from '@/config/config';
import { JOB_HANDLER, JobMethod } from './job-handler.decorator';
import { JOB_NAMES, JOB_QUEUE, JobName, JobPayloads, PERIODIC_JOBS, QueueName, QUEUES } from './jobs';

export type BackoffStrategy = (attemptsMade: number, err: Error, job: MinimalJob) => number;

interface QueueOptions {
  concurrency: number;
}

const DEFAULT_CONCURRENCY: Record<QueueName, number> = { events: 5, publish: 5, webhooks: 20, maintenance: 2 };
/** How often the worker role checks that its job schedulers still exist in Redis. */
const SCHEDULER_CHECK_MS = 5000;

/**
 * One place that owns BullMQ: queues (both roles), workers (worker role only), the `@JobHandler`
 * methods of the modules' providers (found at start-up), custom backoff strategies registered by
 * modules in onModuleInit, and the periodic schedulers of PERIODIC_JOBS.
 */
@Injectable()
export class QueueService
  implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger('Queue');
  private readonly queues = new Map<QueueName, Queue>();
  private readonly workers: Worker[] = [];
  private readonly handlers = new Map<JobName, JobMethod<JobName>>();
  private readonly backoffs = new Map<string, BackoffStrategy>();
  private readonly schedules: { job: JobName; everyMs: number }[] = [];
  private readonly options: Partial<Record<QueueName, QueueOptions>> = {};
  private started = false;
  private schedulerCheck: NodeJS.Timeout | null = null;

  constructor(
    private readonly config: AppConfig,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  /** Registers every `@JobHandler` method of the application's singleton providers. */
  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!wrapper.isDependencyTreeStatic() || !instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = (instance as Record<string, unknown>)[method];
        if (typeof fn !== 'function') continue;
        const job = this.reflector.get<JobName | undefined>(JOB_HANDLER, fn);
        if (!job) continue;
        if (this.handlers.has(job)) throw new Error(`Two handlers for job ${job}`);
        this.handlers.set(job, (fn as JobMethod<JobName>).bind(instance));
      }
    }
    for (const job of this.handlers.keys()) {
      const every = PERIODIC_JOBS[job];
      if (every) this.schedules.push({ job, everyMs: every(this.config) });
    }
  }

  /** Job names no provider handles (a test keeps this empty). */
  unhandledJobs(): JobName[] {
    return JOB_NAMES.filter((job) => !this.handlers.has(job));
  }

  private connection() {
    const url = new URL(this.config.redisUrl);
    return {
      host: url.hostname,
      port: Number(url.port || 6379),
      username: url.username || undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0,
      maxRetriesPerRequest: null,
    };
  }

  queue(name: QueueName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection(), prefix: `${this.config.redisPrefix}:bull` });
      this.queues.set(name, q);
    }
    return q;
  }

  async enqueue<J extends JobName>(job: J, payload: JobPayloads[J], opts: JobsOptions = {}): Promise<void> {
    await this.queue(JOB_QUEUE[job]).add(job, payload, {
      removeOnComplete: { age: 24 * 3600, count: 10000 },
      removeOnFail: { age: 7 * 24 * 3600 },
      ...opts,
    });
  }

  /** Many jobs of one name in one round trip (BullMQ addBulk: a MULTI); same defaults as enqueue. */
  async enqueueMany<J extends JobName>(
    job: J,
    items: { payload: JobPayloads[J]; opts?: JobsOptions }[],
  ): Promise<void> {
    if (items.length === 0) return;
    await this.queue(JOB_QUEUE[job]).addBulk(
      items.map(({ payload, opts }) => ({
        name: job,
        data: payload,
        opts: { removeOnComplete: { age: 24 * 3600, count: 10000 }, removeOnFail: { age: 7 * 24 * 3600 }, ...opts },
      })),
    );
  }

  /** Removes a waiting/delayed job by id (e.g. a superseded schedule); ignores one already running. */
  async remove(job: JobName, jobId: string): Promise<void> {
    await this.queue(JOB_QUEUE[job])
      .remove(jobId)
      .catch(() => 0);
  }

  registerBackoff(type: string, strategy: BackoffStrategy): void {
    this.backoffs.set(type, strategy);
  }

  configureQueue(name: QueueName, options: QueueOptions): void {
    this.options[name] = options;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runsWorker || this.started) return;
    this.started = true;
    for (const name of QUEUES) {
      const jobs = [...this.handlers.keys()].filter((j) => JOB_QUEUE[j] === name);
      if (jobs.length === 0) continue;
      const worker = new Worker(name, (job: Job, token?: string) => this.process(job, token), {
        connection: this.connection(),
        prefix: `${this.config.redisPrefix}:bull`,
        concurrency: this.options[name]?.concurrency ?? DEFAULT_CONCURRENCY[name],
        settings: {
          backoffStrategy: (attemptsMade: number, type?: string, err?: Error, job?: MinimalJob) => {
            const strategy = type ? this.backoffs.get(type) : undefined;
            return strategy && job
              ? strategy(attemptsMade, err ?? new Error('unknown'), job)
              : 1000 * 2 ** attemptsMade;
          },
        },
      });
      worker.on('failed', (job, err) =>
        this.logger.warn({ job: job?.name, id: job?.id, err: err.message }, 'Job failed'),
      );
      worker.on('error', (err) => this.logger.error({ err: err.message }, 'Worker error'));
      this.workers.push(worker);
    }
    for (const { job, everyMs } of this.schedules) await this.upsertScheduler(job, everyMs);
    // A Redis flush (or failover to an empty replica) drops the schedulers with everything else;
    // the sweeps that recover lost jobs are themselves periodic jobs, so they are re-created here.
    if (this.schedules.length > 0) {
      this.schedulerCheck = setInterval(() => void this.restoreSchedulers(), SCHEDULER_CHECK_MS);
      this.schedulerCheck.unref();
    }
  }

  private async upsertScheduler(job: JobName, everyMs: number): Promise<void> {
    await this.queue(JOB_QUEUE[job]).upsertJobScheduler(
      `every:${job}`,
      { every: everyMs },
      { name: job, data: {}, opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
  }

  /** Re-creates job schedulers that are no longer in Redis. */
  async restoreSchedulers(): Promise<JobName[]> {
    const restored: JobName[] = [];
    for (const { job, everyMs } of this.schedules) {
      try {
        if (await this.queue(JOB_QUEUE[job]).getJobScheduler(`every:${job}`)) continue;
        await this.upsertScheduler(job, everyMs);
        restored.push(job);
      } catch (err) {
        this.logger.warn({ job, err: (err as Error).message }, 'Could not check a job scheduler');
      }
    }
    if (restored.length > 0) this.logger.warn({ jobs: restored }, 'Re-created job schedulers missing from Redis');
    return restored;
  }

  private async process(job: Job, token?: string): Promise<unknown> {
    const handler = this.handlers.get(job.name as JobName);
    if (!handler) throw new Error(`No handler for job ${job.name}`);
    return handler(job.data as never, job as never, token);
  }

  /**
   * Graceful shutdown, first half: stop taking jobs and let the running ones finish. Nest calls
   * every beforeApplicationShutdown before any onApplicationShutdown, so this completes before
   * TypeORM closes the database (a job still running then failed with "Driver not Connected").
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.schedulerCheck) clearInterval(this.schedulerCheck);
    await Promise.all(this.workers.map((w) => w.close().catch(() => undefined)));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
    await Promise.all([...this.queues.values()].map((q) => q.close().catch(() => undefined)));
  }
}
