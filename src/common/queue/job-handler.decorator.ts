import { SetMetadata } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { JobName, JobPayloads } from './jobs';

export const JOB_HANDLER = 'queue:job-handler';

/** The method a job runs. `token` is the worker's lock token (for job.moveToDelayed). */
export type JobMethod<J extends JobName> = (
  payload: JobPayloads[J],
  job: Job<JobPayloads[J]>,
  token?: string,
) => Promise<unknown>;

/**
 * Marks the provider method that runs a job: `grep -rn "@JobHandler("` lists every job's handler.
 * QueueService finds them at start-up (one handler per job; a job without one fails its test),
 * and a periodic job's interval is declared beside its name in `jobs.ts` (PERIODIC_JOBS).
 */
export function JobHandler<J extends JobName>(job: J) {
  return <M extends JobMethod<J>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>) => {
    SetMetadata(JOB_HANDLER, job)(target, key, descriptor);
  };
}
