import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { TestApp } from './test-app';

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
  const server = t.app.getHttpServer();
  const [handle] = server.listeners('request') as RequestListener[];
  let release = (): void => undefined;
  const answered = new Promise<void>((taken) => {
    server.removeListener('request', handle);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === method && url.test(req.url ?? '')) {
        server.removeAllListeners('request');
        server.on('request', handle);
        const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
        res.end = ((...args: unknown[]) => {
          release = () => void end(...args);
          taken();
          return res;
        }) as typeof res.end;
      }
      handle(req, res);
    });
  });
  return { answered, release: () => release() };
}
