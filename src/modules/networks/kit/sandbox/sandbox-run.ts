import { AsyncLocalStorage } from 'node:async_hooks';
import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { PUBLISH_RUN_HEADER } from '../publish-run';
import { SandboxStore } from './sandbox-store';

/** The publish run of a sandbox request (X-Sandbox-Publish-Run, see publish-run.ts), for the magic words. */
type PublishRun = NonNullable<ReturnType<typeof parsePublishRun>>;

const current = new AsyncLocalStorage<PublishRun>();

export function currentPublishRun(): PublishRun | null {
  return current.getStore() ?? null;
}

/** The header's run: its `id` (`<targetId>/<run>`) and `run`, 1 for a target's first, 2 after one retry, … */
function parsePublishRun(header: string | undefined) {
  const m = /^[\w-]{1,64}\/(\d{1,6})$/.exec(header ?? '');
  return m ? { id: header!, run: Number(m[1]) } : null;
}

/** A run whose answer was lost stays unreachable for this long (its look-ups cannot tell). */
const LOST_RUN_TTL_SECONDS = 600;

/** #sandbox-unknown-outcome: from now on every call of the current publish run loses its answer. */
export async function loseAnswersOfRun(store: SandboxStore): Promise<void> {
  const run = currentPublishRun();
  if (run) await store.put(['lost-run', run.id], true, LOST_RUN_TTL_SECONDS);
}

/** Reads the run of every /sandbox request; drops the connection of the calls of a lost run. */
@Injectable()
export class SandboxRunMiddleware implements NestMiddleware {
  constructor(private readonly store: SandboxStore) {}

  use(req: Request, _res: Response, next: NextFunction): void {
    const run = parsePublishRun(req.header(PUBLISH_RUN_HEADER));
    if (!run) return next();
    this.store.get<boolean>(['lost-run', run.id]).then(
      (lost) => (lost ? void req.socket.destroy() : current.run(run, next)),
      (err: unknown) => next(err),
    );
  }
}
