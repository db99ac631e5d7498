import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which publish run of which target a network call belongs to, told to the sandbox only.
 * The publisher runs each target inside `withPublishRun` (the registry does it only in sandbox
 * mode); the kit's HTTP client then adds `X-Sandbox-Publish-Run: <targetId>/<run>` to the calls
 * whose URL is under the sandbox. The simulators read it to rehearse outcomes that depend on the
 * run (`#sandbox-flaky` fails run 1 only) while the adapters speak the networks' own APIs.
 */
export const PUBLISH_RUN_HEADER = 'x-sandbox-publish-run';

export interface PublishRunContext {
  /** Calls to URLs starting with this (the sandbox's `/sandbox/`) carry the header. */
  sandboxPrefix: string;
  /** `<targetId>/<run>`, read at call time (the run number changes when the run starts). */
  runId: () => string;
}

const current = new AsyncLocalStorage<PublishRunContext>();

export function withPublishRun<T>(context: PublishRunContext, fn: () => Promise<T>): Promise<T> {
  return current.run(context, fn);
}

/** The header for a call to `url` made inside a publish run, when `url` is the sandbox's. */
export function publishRunHeaders(url: string): Record<string, string> {
  const context = current.getStore();
  return context && url.startsWith(context.sandboxPrefix) ? { [PUBLISH_RUN_HEADER]: context.runId() } : {};
}
