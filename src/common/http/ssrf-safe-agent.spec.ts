import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { request } from 'undici';
import type { AppConfig } from '@/config/config';
import {
  assertPublicHost,
  BlockedAddressError,
  guardedLookup,
  isPublicAddress,
  SsrfSafeAgent,
} from './ssrf-safe-agent';

const configOf = (allowPrivateUrls: boolean) =>
  ({
    webhooks: { allowPrivateUrls, timeoutMs: 2000, retryDelaysMs: [] },
  }) as unknown as AppConfig;

/** A resolver that answers every name with the given addresses. */
const fakeResolver = (...addresses: string[]) =>
  ((_host: string, _opts: unknown, cb: (err: Error | null, a: LookupAddress[]) => void) =>
    cb(
      null,
      addresses.map((address) => ({
        address,
        family: address.includes(':') ? 6 : 4,
      })),
    )) as never;

describe('SSRF guard', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '10.255.1.2',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
    '2002:a00:1::1',
    'not-an-ip',
  ])('should refuse %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'should accept the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );

  it('should refuse a host name when any of its addresses is private', (done) => {
    guardedLookup(false, fakeResolver('8.8.8.8', '10.0.0.7'))('mixed.example', { all: true }, (err) => {
      expect(err).toBeInstanceOf(BlockedAddressError);
      done();
    });
  });

  it('should pass public answers through in both lookup shapes', (done) => {
    const lookup = guardedLookup(false, fakeResolver('8.8.8.8'));
    lookup('public.example', { all: false }, (err, address, family) => {
      expect(err).toBeNull();
      expect(address).toBe('8.8.8.8');
      expect(family).toBe(4);
      lookup('public.example', { all: true }, (err2, addresses) => {
        expect(err2).toBeNull();
        expect(addresses).toEqual([{ address: '8.8.8.8', family: 4 }]);
        done();
      });
    });
  });

  it('should let private answers through when private URLs are allowed', (done) => {
    guardedLookup(true, fakeResolver('127.0.0.1'))('localhost', { all: true }, (err) => {
      expect(err).toBeNull();
      done();
    });
  });

  it('should check literal IPs and resolved names at creation time', async () => {
    await expect(assertPublicHost('127.0.0.1', false)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(assertPublicHost('10.1.2.3', false)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(assertPublicHost('169.254.169.254', false)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(assertPublicHost('[::1]', false)).rejects.toBeInstanceOf(BlockedAddressError);
    await expect(assertPublicHost('internal.example', false, fakeResolver('192.168.0.10'))).rejects.toBeInstanceOf(
      BlockedAddressError,
    );
    await expect(assertPublicHost('hooks.example', false, fakeResolver('93.184.216.34'))).resolves.toBeUndefined();
    await expect(assertPublicHost('127.0.0.1', true)).resolves.toBeUndefined();
  });

  describe('the agent, at connect time', () => {
    let server: Server;
    let port: number;
    let hits = 0;
    beforeAll(async () => {
      server = createServer((_req, res) => {
        hits += 1;
        res.end('ok');
      });
      await new Promise<void>((r) => server.listen(0, '::', r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((r) => server.close(r));
    });

    it.each(['127.0.0.1', '[::1]', 'localhost', '[::ffff:127.0.0.1]'])(
      'should refuse to connect to %s',
      async (host) => {
        const agent = new SsrfSafeAgent(configOf(false));
        const before = hits;
        try {
          await expect(
            request(`http://${host}:${port}/`, {
              dispatcher: agent.dispatcher,
            }),
          ).rejects.toThrow(/not a public unicast address/);
          expect(hits).toBe(before);
        } finally {
          await agent.onApplicationShutdown();
        }
      },
    );

    it('should refuse link-local and private literals without sending anything', async () => {
      const agent = new SsrfSafeAgent(configOf(false));
      try {
        await expect(
          request('http://169.254.169.254/latest/meta-data/', {
            dispatcher: agent.dispatcher,
          }),
        ).rejects.toBeInstanceOf(BlockedAddressError);
        await expect(request('http://10.0.0.1:81/', { dispatcher: agent.dispatcher })).rejects.toBeInstanceOf(
          BlockedAddressError,
        );
      } finally {
        await agent.onApplicationShutdown();
      }
    });

    it('should connect to loopback when private URLs are allowed', async () => {
      const agent = new SsrfSafeAgent(configOf(true));
      try {
        const res = await request(`http://127.0.0.1:${port}/`, {
          dispatcher: agent.dispatcher,
        });
        expect(res.statusCode).toBe(200);
        expect(await res.body.text()).toBe('ok');
      } finally {
        await agent.onApplicationShutdown();
      }
    });
  });
});
