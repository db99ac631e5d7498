import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { errors, fetch, request } from 'undici';
import { transportFailure } from './transport-failure';

/** A local port nothing listens on (a server opened and closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  await new Promise((closed) => server.close(closed));
  return port;
}

const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => Promise.reject(new Error('the call answered')),
    (err: unknown) => transportFailure(err),
  );

describe('transportFailure', () => {
  it("should read undici's refused connection as its code and message", async () => {
    const port = await closedPort();
    expect(await failureOf(request(`http://127.0.0.1:${port}/`))).toEqual({
      timedOut: false,
      transportTimeout: false,
      code: 'ECONNREFUSED',
      message: `connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it("should read fetch's wrapped error by its cause (not 'fetch failed')", async () => {
    const port = await closedPort();
    expect(await failureOf(fetch(`http://127.0.0.1:${port}/`))).toMatchObject({
      code: 'ECONNREFUSED',
      message: `connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it("should tell the call's own time limit from undici's time-outs", async () => {
    const signal = AbortSignal.timeout(1);
    await new Promise((aborted) => signal.addEventListener('abort', aborted));
    expect(transportFailure(signal.reason)).toMatchObject({ timedOut: true, transportTimeout: false });
    for (const err of [
      new errors.ConnectTimeoutError(),
      new errors.HeadersTimeoutError(),
      new errors.BodyTimeoutError(),
    ])
      expect(transportFailure(err)).toMatchObject({ timedOut: false, transportTimeout: true });
  });

  it('should read what is not an Error as its text', () => {
    expect(transportFailure('socket hang up')).toEqual({
      timedOut: false,
      transportTimeout: false,
      code: undefined,
      message: 'socket hang up',
    });
  });
});
