import { DocFetch } from '@test/support/doc-fetch';
import { callNetwork } from './http';
import { PlatformError } from './adapter';
import { withCallGuard } from './publish-run';

const mapError = (): PlatformError => new PlatformError('failed', 'network_error', true);

describe('withCallGuard', () => {
  const net = new DocFetch().eachTest((n) => n.on({ url: 'http://network.test/', json: {} }));

  it('should have callNetwork wait for the guard before each call it makes', async () => {
    const callsSeenByGuard: number[] = [];
    const guard = async (): Promise<void> => {
      await new Promise((r) => setImmediate(r));
      callsSeenByGuard.push(net.requests.length);
    };
    await withCallGuard(guard, async () => {
      await callNetwork({ url: 'http://network.test/a', timeoutMs: 1000 }, mapError);
      await callNetwork({ url: 'http://network.test/b', timeoutMs: 1000 }, mapError);
    });
    expect(callsSeenByGuard).toEqual([0, 1]);
    expect(net.requests.map((r) => r.url)).toEqual(['http://network.test/a', 'http://network.test/b']);
  });

  it('should send nothing when the guard fails', async () => {
    const call = withCallGuard(
      () => Promise.reject(new Error('not committed')),
      () => callNetwork({ url: 'http://network.test/a', timeoutMs: 1000 }, mapError),
    );
    await expect(call).rejects.toThrow('not committed');
    expect(net.requests).toEqual([]);
  });

  it('should not guard calls made outside it', async () => {
    let guarded = 0;
    await withCallGuard(
      async () => void guarded++,
      async () => undefined,
    );
    await callNetwork({ url: 'http://network.test/a', timeoutMs: 1000 }, mapError);
    expect(net.requests).toHaveLength(1);
    expect(guarded).toBe(0);
  });
});
