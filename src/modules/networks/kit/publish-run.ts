import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Tells the sandbox only which publish run a call belongs to (`<targetId>/<run>`), so simulators can rehearse
 * run-dependent outcomes (`#sandbox-flaky` fails run 1 only). `runId` is read at call time (set as the run starts).
 */
export const PUBLISH_RUN_HEADER = 'x-sandbox-publish-run';

type PublishRun = { sandboxPrefix: string; runId: () => string };
/** The sandbox's run (withPublishRun) and the publisher's guard (withCallGuard): one store, one propagation per promise. */
const current = new AsyncLocalStorage<{ run?: PublishRun; guard?: () => Promise<void> }>();

export function withPublishRun<T>(run: PublishRun, fn: () => Promise<T>): Promise<T> {
  return current.run({ ...current.getStore(), run }, fn);
}

export function publishRunHeaders(url: string): Record<string, string> {
  const run = current.getStore()?.run;
  return run && url.startsWith(run.sandboxPrefix) ? { [PUBLISH_RUN_HEADER]: run.runId() } : {};
}

/**
 * Runs `fn` with `beforeCall` awaited before each network call inside it: the publisher's writes that must be
 * committed before anything reaches the network (a target's move to `publishing`).
 */
export function withCallGuard<T>(beforeCall: () => Promise<void>, fn: () => Promise<T>): Promise<T> {
  return current.run({ ...current.getStore(), guard: beforeCall }, fn);
}

export function beforeNetworkCall(): Promise<void> | undefined {
  return current.getStore()?.guard?.();
}
