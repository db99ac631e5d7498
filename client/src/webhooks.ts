import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header each delivery carries: `Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'service-signature';

/**
 * Verifies a webhook delivery: HMAC-SHA256 with the subscription secret over `<t>.<raw body>`,
 * compared in constant time with every `v1` of the header, and `t` within `toleranceSeconds`
 * of now (replay protection). Pass the raw bytes as received: a re-serialised body does not verify.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer | Uint8Array,
  header: string | null | undefined,
  secret: string,
  toleranceSeconds = 300,
): boolean {
  if (!header || !secret) return false;
  const parsed = parseSignatureHeader(header);
  if (!parsed || parsed.signatures.length === 0) return false;
  if (toleranceSeconds > 0 && Math.abs(Math.floor(Date.now() / 1000) - parsed.timestamp) > toleranceSeconds)
    return false;
  const expected = Buffer.from(computeSignature(rawBody, parsed.timestamp, secret), 'hex');
  return parsed.signatures.some((candidate) => {
    if (!/^[0-9a-f]+$/i.test(candidate) || candidate.length !== expected.length * 2) return false;
    return timingSafeEqual(Buffer.from(candidate, 'hex'), expected);
  });
}

/** Builds the header value the service would send (for receivers' own tests). */
export function signWebhookPayload(
  rawBody: string | Buffer | Uint8Array,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  return `t=${timestamp},v1=${computeSignature(rawBody, timestamp, secret)}`;
}

function computeSignature(rawBody: string | Buffer | Uint8Array, timestamp: number, secret: string): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}.`)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) timestamp = Number(value);
    else if (key === 'v1') signatures.push(value);
  }
  return timestamp === undefined ? null : { timestamp, signatures };
}
