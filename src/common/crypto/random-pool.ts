import { randomBytes } from 'node:crypto';

const POOL_BYTES = 3072;
let pool = Buffer.alloc(0);
let offset = 0;

/**
 * `bytes` random bytes, encoded, drawn from a pool refilled 3 KiB at a time: one randomBytes call
 * per few hundred values instead of one per value, for the per-request ones (request ids,
 * rate-limit entries). For unique identifiers, not for key material.
 */
export function pooledRandom(bytes: number, encoding: 'hex' | 'base64url'): string {
  if (offset + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    offset = 0;
  }
  offset += bytes;
  return pool.toString(encoding, offset - bytes, offset);
}
