import Stripe from 'stripe';
import { computeSignature, generateWebhookSecret, signatureHeader, verifySignature } from './webhook-signature';

describe('webhook signature', () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({
    id: 'f3b9',
    type: 'post.published',
    createdAt: '2026-11-01T10:00:00.000Z',
    data: { profileId: 'p1', note: 'héllo ✓' },
  });
  const now = new Date('2026-11-01T10:00:05Z');

  it('should produce t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>', () => {
    const header = signatureHeader(secret, body, now);
    const t = Math.floor(now.getTime() / 1000);
    expect(header).toBe(`t=${t},v1=${computeSignature(secret, t, body)}`);
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  });

  it('should verify with our verifier and with stripe as an independent oracle', () => {
    const header = signatureHeader(secret, body);
    expect(verifySignature(body, header, secret)).toMatchObject({ ok: true });
    expect(verifySignature(Buffer.from(body), header, secret)).toMatchObject({
      ok: true,
    });
    expect(new Stripe('sk_test_x').webhooks.signature!.verifyHeader(body, header, secret, 300)).toBe(true);
  });

  it('should refuse a changed body, another secret, a malformed header and an old timestamp', () => {
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(body.replace('héllo', 'hello'), header, secret, 300, now)).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    expect(verifySignature(body, header, generateWebhookSecret(), 300, now)).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    expect(verifySignature(body, 'v1=abc', secret, 300, now)).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
    expect(verifySignature(body, header, secret, 300, new Date(now.getTime() + 301_000))).toEqual({
      ok: false,
      reason: 'timestamp_outside_tolerance',
    });
    expect(verifySignature(body, header, secret, 300, new Date(now.getTime() + 299_000))).toMatchObject({ ok: true });
  });
});
