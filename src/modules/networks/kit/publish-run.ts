import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which publish run of which target a network call belongs to, told to the sandbox only: inside `withPublishRun`
 * the kit's HTTP client adds `X-Sandbox-Publish-Run: <targetId>/<run>` to calls whose URL starts with
 * `sandboxPrefix`, so the simulators can rehearse run-dependent outcomes (`#sandbox-flaky` fails run 1 only) while
 * the adapters speak the networks' own APIs. `runId` is read at call time (the run number changes when it starts).
 */
export const PUBLISH_RUN_HEADER = 'x-sandbox-publish-run';

type PublishRun = { sandboxPrefix: string; runId: () => string };
/** The sandbox's run (withPublishRun) and the publisher's guard (withCallGuard): one store, one propagation per promise. */
const current = new AsyncLocalStorage<{ run?: PublishRun; guard?: () => Promise<void> }>();

export function withPublishRun<T>(run: PublishRun, fn: () => Promise<T>): Promise<T> {
  return current.run({ ...current.getStore(), run }, fn);
}

/** The header for a call to `url` made inside a publish run, when `url` is the sandbox's. */
export function publishRunHeaders(url: string): Record<string, string> {
  const run = current.getStore()?.run;
  return run && url.startsWith(run.sandboxPrefix) ? { [PUBLISH_RUN_HEADER]: run.runId() } : {};
}

/**
 * Runs `fn` with `beforeCall` awaited before each network call made inside it (callNetwork): the
 * publisher's writes that must be committed before anything reaches the network (a target's move
 * to `publishing`, when it is held to go with the adapter's first saved progress).
 */
export function withCallGuard<T>(beforeCall: () => Promise<void>, fn: () => Promise<T>): Promise<T> {
  return current.run({ ...current.getStore(), guard: beforeCall }, fn);
}

/** What callNetwork awaits before sending (the guard of withCallGuard), or undefined. */
export function beforeNetworkCall(): Promise<void> | undefined {
  return current.getStore()?.guard?.();
}
