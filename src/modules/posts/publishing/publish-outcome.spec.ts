import { PlatformError, StillProcessingError } from '@/modules/networks/kit/adapter';
import {
  decideAfterError,
  decideAfterLookup,
  finalPostState,
  MAX_CHECK_DELAY_MS,
  nextCheckDelayMs,
  RetryPolicy,
} from './publish-outcome';

const policy: RetryPolicy = {
  tries: 3,
  baseDelayMs: 1000,
  maxDelayMs: 10_000,
  retryAfterCapMs: 30_000,
};
const noJitter = () => 0.5;

describe('decideAfterError', () => {
  it('should retry a transient network error with exponential backoff while tries remain', () => {
    const err = new PlatformError('Service unavailable', 'network_error', true, { status: 503 });
    expect(decideAfterError(err, 1, policy, noJitter)).toEqual({
      kind: 'retry',
      delayMs: 1000,
    });
    expect(decideAfterError(err, 2, policy, noJitter)).toEqual({
      kind: 'retry',
      delayMs: 2000,
    });
  });

  it('should fail with the network message and category once the tries are spent', () => {
    const err = new PlatformError('Service unavailable', 'network_error', true);
    expect(decideAfterError(err, 3, policy, noJitter)).toEqual({
      kind: 'fail',
      category: 'network_error',
      message: 'Service unavailable',
    });
  });

  it('should honour retryAfterSeconds of a network rate limit', () => {
    const err = new PlatformError('Slow down', 'network_rate_limited', true, {
      retryAfterSeconds: 7,
    });
    expect(decideAfterError(err, 1, policy, noJitter)).toEqual({
      kind: 'retry',
      delayMs: 7000,
    });
  });

  it('should fail at once when the network asks to wait longer than the cap', () => {
    const err = new PlatformError('Daily cap reached', 'network_rate_limited', true, { retryAfterSeconds: 3600 });
    expect(decideAfterError(err, 1, policy, noJitter)).toEqual({
      kind: 'fail',
      category: 'network_rate_limited',
      message: 'Daily cap reached',
    });
  });

  it.each(['auth_expired', 'invalid_content', 'media_rejected'] as const)(
    'should fail a permanent %s error without retrying',
    (category) => {
      const err = new PlatformError(`The network said no (${category})`, category, false);
      expect(decideAfterError(err, 1, policy, noJitter)).toEqual({
        kind: 'fail',
        category,
        message: `The network said no (${category})`,
      });
    },
  );

  it('should check the network before anything else after an unknown_outcome error', () => {
    const err = new PlatformError('Timed out after 30 s', 'unknown_outcome', true);
    expect(decideAfterError(err, 1, policy, noJitter)).toEqual({
      kind: 'check',
      message: 'Timed out after 30 s',
    });
    expect(decideAfterError(err, 3, policy, noJitter)).toEqual({
      kind: 'check',
      message: 'Timed out after 30 s',
    });
  });

  it('should treat an unclassified error as an unknown outcome, never as safe to re-send', () => {
    expect(decideAfterError(new TypeError('fetch failed'), 1, policy, noJitter)).toEqual({
      kind: 'check',
      message: 'fetch failed',
    });
  });

  it('should cap the backoff and keep the jitter within ±20 %', () => {
    const err = new PlatformError('x', 'network_error', true);
    const long: RetryPolicy = { ...policy, tries: 10 };
    expect(decideAfterError(err, 8, long, noJitter)).toEqual({
      kind: 'retry',
      delayMs: 10_000,
    });
    expect(decideAfterError(err, 1, long, () => 0)).toEqual({
      kind: 'retry',
      delayMs: 800,
    });
    expect(decideAfterError(err, 1, long, () => 1)).toEqual({
      kind: 'retry',
      delayMs: 1200,
    });
  });
});

describe('decideAfterLookup', () => {
  it('should record success with the found item', () => {
    expect(decideAfterLookup({ externalId: 'n1', url: 'https://n/1' })).toEqual({
      kind: 'success',
      result: { externalId: 'n1', url: 'https://n/1' },
    });
  });

  it('should allow publishing again when the network certainly has no item', () => {
    expect(decideAfterLookup(null)).toEqual({ kind: 'republish' });
  });

  it('should fail as unknown_outcome, saying so, when the network cannot tell', () => {
    const d = decideAfterLookup('unknown', 'worker stopped');
    expect(d).toMatchObject({ kind: 'fail', category: 'unknown_outcome' });
    expect(d.kind === 'fail' && d.message).toMatch(/outcome .* is unknown/);
    expect(d.kind === 'fail' && d.message).toContain('worker stopped');
  });
});

describe('finalPostState', () => {
  it('should be published when every target succeeded', () => {
    expect(finalPostState([{ status: 'success' }, { status: 'success' }])).toBe('published');
  });
  it('should be partially_published when some succeeded and some failed', () => {
    expect(finalPostState([{ status: 'success' }, { status: 'failed' }])).toBe('partially_published');
  });
  it('should be failed when every target failed', () => {
    expect(finalPostState([{ status: 'failed' }, { status: 'failed' }])).toBe('failed');
  });
});

describe('nextCheckDelayMs', () => {
  it('should double from the base and stop at 15 minutes', () => {
    expect([0, 1, 2, 3].map((n) => nextCheckDelayMs(n, 15_000))).toEqual([15_000, 30_000, 60_000, 120_000]);
    expect(nextCheckDelayMs(10, 15_000)).toBe(MAX_CHECK_DELAY_MS);
    expect(nextCheckDelayMs(500, 15_000)).toBe(MAX_CHECK_DELAY_MS);
  });
});

describe('StillProcessingError', () => {
  it('should read as a transient network_error to code that does not know it', () => {
    const err = new StillProcessingError('still in review');
    expect(decideAfterError(err, 1, policy, noJitter)).toEqual({ kind: 'retry', delayMs: 1000 });
  });
});
