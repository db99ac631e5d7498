import { hasPermission, isGrant, isSubset, PERMISSIONS } from './permissions';

describe('permissions', () => {
  it('should list the permissions of decisions §2', () => {
    expect([...PERMISSIONS].sort()).toEqual(
      [
        'accounts:read',
        'accounts:write',
        'analytics:read',
        'audit:read',
        'comments:read',
        'keys:read',
        'keys:write',
        'media:write',
        'policy:read',
        'policy:write',
        'posts:approve',
        'posts:read',
        'posts:write',
        'profiles:read',
        'profiles:write',
        'webhooks:read',
        'webhooks:write',
      ].sort(),
    );
  });

  it('should grant a permission held directly or through *', () => {
    expect(hasPermission(['posts:write'], 'posts:write')).toBe(true);
    expect(hasPermission(['*'], 'analytics:read')).toBe(true);
    expect(hasPermission(['posts:read'], 'posts:write')).toBe(false);
    expect(hasPermission([], 'posts:read')).toBe(false);
    // No implied permissions: write does not include read.
    expect(hasPermission(['posts:write'], 'posts:read')).toBe(false);
  });

  it('should accept only known grants', () => {
    expect(isGrant('*')).toBe(true);
    expect(isGrant('keys:write')).toBe(true);
    expect(isGrant('keys:*')).toBe(false);
    expect(isGrant('admin')).toBe(false);
  });

  it('should allow a subset of held permissions and nothing more', () => {
    expect(isSubset(['posts:read'], ['posts:read', 'posts:write'])).toBe(true);
    expect(isSubset([], ['posts:read'])).toBe(true);
    expect(isSubset(['posts:read', 'keys:write'], ['posts:read'])).toBe(false);
    expect(isSubset(['*'], ['posts:read'])).toBe(false);
    expect(isSubset(['*'], ['*'])).toBe(true);
    expect(isSubset(['analytics:read', 'keys:write'], ['*'])).toBe(true);
  });
});
