import { callNetwork } from './http';
import { PlatformError } from './adapter';
import { withCallGuard } from './publish-run';

const ok = (): Promise<Response> => Promise.resolve(new Response('{}', { status: 200 }));
const mapError = (): PlatformError => new PlatformError('failed', 'network_error', true);

describe('withCallGuard', () => {
  it('should have callNetwork wait for the guard before each call it makes', async () => {
    const order: string[] = [];
    let guards = 0;
    const guard = async (): Promise<void> => {
      await new Promise((r) => setImmediate(r));
      order.push(`guard ${++guards}`);
    };
    const fetchFn = (url: string) => (order.push(`call ${url}`), ok());
    await withCallGuard(guard, async () => {
      await callNetwork({ url: 'http://network.test/a', timeoutMs: 1000, fetchFn }, mapError);
      await callNetwork({ url: 'http://network.test/b', timeoutMs: 1000, fetchFn }, mapError);
    });
    expect(order).toEqual(['guard 1', 'call http://network.test/a', 'guard 2', 'call http://network.test/b']);
  });

  it('should send nothing when the guard fails', async () => {
    const fetchFn = jest.fn(ok);
    const call = withCallGuard(
      () => Promise.reject(new Error('not committed')),
      () => callNetwork({ url: 'http://network.test/a', timeoutMs: 1000, fetchFn }, mapError),
    );
    await expect(call).rejects.toThrow('not committed');
    expect(fetchFn).not.toHaveBeenCalled();
  });

  it('should not guard calls made outside it', async () => {
    const fetchFn = jest.fn(ok);
    await callNetwork({ url: 'http://network.test/a', timeoutMs: 1000, fetchFn }, mapError);
    expect(fetchFn).toHaveBeenCalledTimes(1);
  });
});
