import { DocFetch } from '@test/support/doc-fetch';
import { PlatformError } from './adapter';
import { callNetwork } from './http';
import { PUBLISH_RUN_HEADER, publishRunHeaders, withPublishRun } from './publish-run';

describe('publish run header', () => {
  const net = new DocFetch().eachTest((n) => n.on({ url: '/', json: {} }));
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
    let run = 1;
    await withPublishRun({ ...sandbox, runId: () => `t/${run}` }, async () => {
      await callNetwork({ url: 'http://127.0.0.1:3000/sandbox/x', timeoutMs: 1000 }, fail);
      run = 2;
      await callNetwork({ url: 'http://127.0.0.1:3000/sandbox/x', timeoutMs: 1000 }, fail);
      await callNetwork({ url: 'https://graph.facebook.com/v23.0/me', timeoutMs: 1000 }, fail);
    });
    expect(net.requests.map((r) => r.headers[PUBLISH_RUN_HEADER])).toEqual(['t/1', 't/2', undefined]);
  });
});
