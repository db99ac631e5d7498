import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { signWebhookPayload, verifyWebhookSignature } from '../../client/src/webhooks';

const stripe = new Stripe('sk_test_cross_check');
const stripeVerify = (payload: string, header: string): boolean =>
  stripe.webhooks.signature!.verifyHeader(payload, header, secret, 300);
const secret = 'whsec_test_secret_0123456789';
const body =
  '{"id":"5b0f6c4e-1f7a-4b55-9d0e-2c9d5e1a0b11","type":"post.published","createdAt":"2026-11-20T10:00:00.000Z","data":{"profileId":"p1","status":"published"}}';
const now = (): number => Math.floor(Date.now() / 1000);
const hmac = (t: number, raw: string, key = secret): string =>
  createHmac('sha256', key).update(`${t}.${raw}`).digest('hex');

describe('verifyWebhookSignature', () => {
  it('should accept the HMAC-SHA256 of "<t>.<raw body>" in a t=,v1= header', () => {
    const t = now();
    expect(verifyWebhookSignature(body, `t=${t},v1=${hmac(t, body)}`, secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), `t=${t},v1=${hmac(t, body)}`, secret)).toBe(true);
    expect(verifyWebhookSignature(new TextEncoder().encode(body), `t=${t},v1=${hmac(t, body)}`, secret)).toBe(true);
  });

  it('should reject a re-serialised body, another secret, a tampered digest and malformed headers', () => {
    const t = now();
    const header = `t=${t},v1=${hmac(t, body)}`;
    expect(verifyWebhookSignature(JSON.stringify(JSON.parse(body), null, 1), header, secret)).toBe(false);
    expect(verifyWebhookSignature(body, header, 'whsec_other')).toBe(false);
    expect(
      verifyWebhookSignature(
        body,
        header.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
        secret,
      ),
    ).toBe(false);
    expect(verifyWebhookSignature(body, `t=${t},v1=${hmac(t, body).slice(0, 62)}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${t},v1=${'zz'.repeat(32)}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `v1=${hmac(t, body)}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${t}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, '', secret)).toBe(false);
    expect(verifyWebhookSignature(body, undefined, secret)).toBe(false);
    expect(verifyWebhookSignature(body, header, '')).toBe(false);
  });

  it('should reject timestamps further than the tolerance (300 s by default) in either direction', () => {
    const old = now() - 301;
    const future = now() + 301;
    expect(verifyWebhookSignature(body, `t=${old},v1=${hmac(old, body)}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${future},v1=${hmac(future, body)}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${old},v1=${hmac(old, body)}`, secret, 600)).toBe(true);
    const edge = now() - 290;
    expect(verifyWebhookSignature(body, `t=${edge},v1=${hmac(edge, body)}`, secret)).toBe(true);
  });

  it('should accept the header when any of several v1 signatures matches', () => {
    const t = now();
    expect(verifyWebhookSignature(body, `t=${t},v1=${hmac(t, body, 'whsec_old')},v1=${hmac(t, body)}`, secret)).toBe(
      true,
    );
  });

  describe('cross-checked with stripe webhooks.signature.verifyHeader', () => {
    it('should produce headers stripe verifies', () => {
      const header = signWebhookPayload(body, secret);
      expect(stripeVerify(body, header)).toBe(true);
    });

    it('should verify headers stripe generates, and reject the ones stripe rejects', () => {
      const header = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: now() });
      expect(verifyWebhookSignature(body, header, secret)).toBe(true);
      expect(() => stripeVerify(`${body} `, header)).toThrow();
      expect(verifyWebhookSignature(`${body} `, header, secret)).toBe(false);
      const stale = stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: now() - 1000 });
      expect(() => stripeVerify(body, stale)).toThrow();
      expect(verifyWebhookSignature(body, stale, secret)).toBe(false);
    });

    it('should agree with stripe on random bodies and secrets', () => {
      for (let i = 0; i < 50; i++) {
        const raw = JSON.stringify({
          i,
          text: Math.random()
            .toString(36)
            .repeat(i % 7),
          emoji: '✓é',
        });
        const key = `whsec_${Math.random().toString(36).slice(2)}`;
        const ours = signWebhookPayload(raw, key);
        const theirs = stripe.webhooks.generateTestHeaderString({
          payload: raw,
          secret: key,
          timestamp: Number(/t=(\d+)/.exec(ours)![1]),
        });
        expect(ours).toBe(theirs);
        expect(verifyWebhookSignature(raw, theirs, key)).toBe(true);
      }
    });
  });
});
