import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import { AppConfig } from '@/config/config';

/** Thrown (and passed to undici's connect callback) when a host resolves to a non-public address. */
export class BlockedAddressError extends Error {
  readonly code = 'ERR_SSRF_BLOCKED';

  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      host === address
        ? `Address ${address} is not a public unicast address`
        : `Host ${host} resolves to ${address}, which is not a public unicast address`,
    );
    this.name = 'BlockedAddressError';
  }
}

/**
 * True only for public unicast addresses. Loopback, private (RFC 1918, unique-local), link-local
 * (cloud metadata at 169.254.169.254), carrier-grade NAT, multicast, unspecified, reserved and the
 * IPv6 forms that embed an IPv4 address (mapped, 6to4, NAT64, Teredo) are all refused.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns ::ffff:127.0.0.1 into 127.0.0.1, so a mapped address is judged as IPv4.
  return ipaddr.process(address).range() === 'unicast';
}

/** Throws BlockedAddressError unless `address` is public (or private addresses are allowed). */
export function assertAllowedAddress(host: string, address: string, allowPrivate: boolean): void {
  if (!allowPrivate && !isPublicAddress(address)) throw new BlockedAddressError(host, address);
}

/**
 * A `lookup` for net/tls.connect that resolves every address of the host and fails when any of
 * them is non-public (refusing the whole name, so a DNS answer mixing public and private
 * addresses cannot be raced). Checking at connect time, not only when the URL was saved, is what
 * defeats DNS rebinding.
 */
export function guardedLookup(allowPrivate: boolean, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    resolve(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, options.all ? [] : '', 0);
      try {
        if (addresses.length === 0)
          throw Object.assign(new Error(`No address for ${hostname}`), {
            code: 'ENOTFOUND',
          });
        for (const a of addresses) assertAllowedAddress(hostname, a.address, allowPrivate);
      } catch (e) {
        return callback(e as NodeJS.ErrnoException, options.all ? [] : '', 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * The connector: literal IPs never reach `lookup` (net.connect skips DNS for them), so they are
 * checked here before connecting; names are checked by the guarded lookup.
 */
export function ssrfSafeConnector(allowPrivate: boolean, timeoutMs: number): buildConnector.connector {
  const connect = buildConnector({
    timeout: timeoutMs,
    lookup: guardedLookup(allowPrivate),
  });
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host)) {
      try {
        assertAllowedAddress(host, host, allowPrivate);
      } catch (err) {
        callback(err as Error, null);
        return;
      }
    }
    connect(opts, callback);
  };
}

/** Resolves a host name (or literal IP) at creation time and throws BlockedAddressError / ENOTFOUND. */
export async function assertPublicHost(
  hostname: string,
  allowPrivate: boolean,
  resolve: typeof dnsLookup = dnsLookup,
): Promise<void> {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host)) return assertAllowedAddress(host, host, allowPrivate);
  if (allowPrivate) return;
  const addresses = await new Promise<LookupAddress[]>((ok, fail) =>
    resolve(host, { all: true }, (err, a: LookupAddress[]) => (err ? fail(err) : ok(a))),
  );
  if (addresses.length === 0)
    throw Object.assign(new Error(`No address for ${host}`), {
      code: 'ENOTFOUND',
    });
  for (const a of addresses) assertAllowedAddress(host, a.address, allowPrivate);
}

/**
 * The one undici Agent for outbound HTTP to user-given URLs (webhook receivers). Every new
 * connection goes through the SSRF-safe connector; WEBHOOK_ALLOW_PRIVATE_URLS=true lifts the
 * address check (tests, local development).
 */
@Injectable()
export class SsrfSafeAgent implements OnApplicationShutdown {
  readonly dispatcher: Agent;

  constructor(config: AppConfig) {
    const timeout = config.webhooks.timeoutMs;
    this.dispatcher = new Agent({
      connect: ssrfSafeConnector(config.webhooks.allowPrivateUrls, timeout),
      headersTimeout: timeout,
      bodyTimeout: timeout,
      keepAliveTimeout: 4_000,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.destroy().catch(() => undefined);
  }
}
