import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { TestApp } from './test-app';

/**
 * A held request or answer: `held` resolves once it is held; `release()` lets it go on, or, called
 * before anything was held, puts the app's listener back (so a `finally` can always call it).
 */
export interface Held {
  held: Promise<void>;
  release: () => void;
}

/**
 * Holds the sandbox's answer to the next `method` request whose URL matches `url`: the network has
 * done its part, but the caller hears nothing until `release()`. `answered` resolves once the
 * answer is held (so a worker killed after it dies mid-call, however loaded the machine).
 */
export function holdNextAnswer(
  t: TestApp,
  method: string,
  url: RegExp,
): { answered: Promise<void>; release: () => void } {
  const { held, release } = holdNext(t, method, url, (req, res, handle, taken) => {
    const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
    res.end = ((...args: unknown[]) => {
      taken(() => void end(...args));
      return res;
    }) as typeof res.end;
    handle(req, res);
  });
  return { answered: held, release };
}

/**
 * Holds the next `method` request whose URL matches `url` before the sandbox sees it: the call has
 * reached the network, which has done nothing with it yet, until `release()`. `held` resolves once
 * the request is held (what the caller committed before sending is in the database by then).
 */
export function holdNextRequest(t: TestApp, method: string, url: RegExp): Held {
  return holdNext(t, method, url, (req, res, handle, taken) => taken(() => handle(req, res)));
}

/**
 * The app's request listener swapped, until the next matching request, for one that gives it to
 * `hold` (which calls `taken` with what `release()` does); the other requests go on as they came.
 */
function holdNext(
  t: TestApp,
  method: string,
  url: RegExp,
  hold: (req: IncomingMessage, res: ServerResponse, handle: RequestListener, taken: (go: () => void) => void) => void,
): Held {
  const server = t.app.getHttpServer();
  const [handle] = server.listeners('request') as RequestListener[];
  const restore = (): void => {
    server.removeAllListeners('request');
    server.on('request', handle);
  };
  let release = restore;
  const held = new Promise<void>((taken) => {
    server.removeListener('request', handle);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== method || !url.test(req.url ?? '')) return handle(req, res);
      restore();
      release = () => undefined;
      hold(req, res, handle, (go) => {
        release = go;
        taken();
      });
    });
  });
  return { held, release: () => release() };
}
