import { ApiError } from '@/common/errors/api-error';
import { assertDailyCap, assertTargetsAllowed, assertTargetsFound, selectTargets } from './post-rules';

const fb = { id: 'a1', platform: 'facebook' as const, name: 'Page' };
const yt = { id: 'a2', platform: 'youtube' as const, name: 'Channel' };

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as ApiError).code;
  }
  return 'none';
}

describe('target selection', () => {
  it('should take every usable account when no ids are given', () => {
    expect(selectTargets(null, [fb, yt], null).chosen).toEqual([fb, yt]);
    expect(selectTargets(null, [fb, yt], ['a2']).chosen).toEqual([yt]);
  });

  it('should answer account_not_allowed for ids outside the key', () => {
    expect(
      codeOf(() => assertTargetsAllowed(selectTargets(['a1', 'a2'], [fb, yt], ['a1']), { allowedPlatforms: null })),
    ).toBe('account_not_allowed');
  });

  it('should answer platform_not_allowed for a platform the policy excludes', () => {
    expect(
      codeOf(() => assertTargetsAllowed(selectTargets(['a2'], [fb, yt], null), { allowedPlatforms: ['facebook'] })),
    ).toBe('platform_not_allowed');
    expect(
      codeOf(() => assertTargetsAllowed(selectTargets(['a1'], [fb, yt], null), { allowedPlatforms: ['facebook'] })),
    ).toBe('none');
  });

  it('should answer no_accounts_connected before accounts_not_found', () => {
    expect(codeOf(() => assertTargetsFound(selectTargets(['zz'], [], null), 'accountIds'))).toBe(
      'no_accounts_connected',
    );
    expect(codeOf(() => assertTargetsFound(selectTargets(['zz'], [fb], null), 'accountIds'))).toBe(
      'accounts_not_found',
    );
    expect(codeOf(() => assertTargetsFound(selectTargets(['a1', 'zz'], [fb], null), 'accountIds'))).toBe(
      'accounts_not_found',
    );
    expect(codeOf(() => assertTargetsFound(selectTargets(['a1', 'a1'], [fb], null), 'accountIds'))).toBe('none');
  });
});

describe('daily cap', () => {
  it('should carry limit, used and the next midnight UTC', () => {
    try {
      assertDailyCap(2, 2, new Date('2030-05-05T18:00:00Z'));
      throw new Error('expected daily_post_limit');
    } catch (err) {
      expect((err as ApiError).code).toBe('daily_post_limit');
      expect((err as ApiError).details).toEqual({ limit: 2, used: 2, resetsAt: '2030-05-06T00:00:00.000Z' });
    }
    expect(() => assertDailyCap(2, 1, new Date())).not.toThrow();
    expect(() => assertDailyCap(null, 99, new Date())).not.toThrow();
  });
});
