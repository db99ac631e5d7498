import { PlatformError } from './adapter';
import { callNetwork } from './http';
import { PUBLISH_RUN_HEADER, publishRunHeaders, withPublishRun } from './publish-run';

describe('publish run header', () => {
  const sandbox = { sandboxPrefix: 'http://127.0.0.1:3000/sandbox/', runId: () => 'target-1/2' };

  it('should name the run to the sandbox only, and only inside a run', async () => {
    expect(publishRunHeaders('http://127.0.0.1:3000/sandbox/linkedin/rest/posts')).toEqual({});
    await withPublishRun(sandbox, async () => {
      expect(publishRunHeaders('http://127.0.0.1:3000/sandbox/linkedin/rest/posts')).toEqual({
        [PUBLISH_RUN_HEADER]: 'target-1/2',
      });
      expect(publishRunHeaders('https://api.linkedin.com/rest/posts')).toEqual({});
    });
  });

  const fail = () => new PlatformError('unexpected', 'network_error', true);

  it('should be sent by the kit HTTP client with the call, read when the call is made', async () => {
    const seen: (string | undefined)[] = [];
    const fetchFn = async (_url: string, init: RequestInit) => {
      seen.push((init.headers as Record<string, string>)[PUBLISH_RUN_HEADER]);
      return new Response('{}', { status: 200 });
    };
    let run = 1;
    await withPublishRun({ ...sandbox, runId: () => `t/${run}` }, async () => {
      await callNetwork({ url: 'http://127.0.0.1:3000/sandbox/x', timeoutMs: 1000, fetchFn }, fail);
      run = 2;
      await callNetwork({ url: 'http://127.0.0.1:3000/sandbox/x', timeoutMs: 1000, fetchFn }, fail);
      await callNetwork({ url: 'https://graph.facebook.com/v23.0/me', timeoutMs: 1000, fetchFn }, fail);
    });
    expect(seen).toEqual(['t/1', 't/2', undefined]);
  });
});
