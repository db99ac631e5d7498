import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
export const SIGNATURE_HEADER = 'Service-Signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** `whsec_` + 32 random bytes (base64url). The whole string is the HMAC key. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** hex HMAC-SHA256(secret, "<t>." + rawBody) */
export function computeSignature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** The `Service-Signature` value: `t=<unix seconds>,v1=<hex>`. */
export function signatureHeader(secret: string, rawBody: string | Buffer, now: Date = new Date()): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${computeSignature(secret, t, rawBody)}`;
}

export type VerifyResult =
  | { ok: true; timestamp: number }
  | {
      ok: false;
      reason: 'malformed_header' | 'no_matching_signature' | 'timestamp_outside_tolerance';
    };

/**
 * Receiver-side verification (the reference for the README's webhooks section): parse `t` and every `v1`,
 * compare in constant time over the exact raw bytes, and refuse timestamps more than
 * `toleranceSeconds` away from now.
 */
export function verifySignature(
  rawBody: string | Buffer,
  header: string,
  secret: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  now: Date = new Date(),
): VerifyResult {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d+$/.test(v)) timestamp = Number(v);
    else if (k === 'v1' && v) signatures.push(v);
  }
  if (timestamp === undefined || signatures.length === 0) return { ok: false, reason: 'malformed_header' };
  const expected = Buffer.from(computeSignature(secret, timestamp, rawBody), 'hex');
  const match = signatures.some((s) => {
    const given = Buffer.from(s, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) return { ok: false, reason: 'no_matching_signature' };
  if (Math.abs(Math.floor(now.getTime() / 1000) - timestamp) > toleranceSeconds)
    return { ok: false, reason: 'timestamp_outside_tolerance' };
  return { ok: true, timestamp };
}
