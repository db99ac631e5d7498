export const PERMISSIONS = [
  'profiles:read',
  'profiles:write',
  'keys:read',
  'keys:write',
  'accounts:read',
  'accounts:write',
  'posts:read',
  'posts:write',
  'posts:approve',
  'media:write',
  'analytics:read',
  'comments:read',
  'webhooks:read',
  'webhooks:write',
  'policy:read',
  'policy:write',
  'audit:read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];
export type Grant = Permission | '*';

export function isGrant(value: string): value is Grant {
  return value === '*' || (PERMISSIONS as readonly string[]).includes(value);
}

export function hasPermission(grants: readonly string[], required: Permission): boolean {
  return grants.includes('*') || grants.includes(required);
}

/** True when every grant of `requested` is held by `held` (a key can only create weaker keys). */
export function isSubset(requested: readonly string[], held: readonly string[]): boolean {
  if (held.includes('*')) return true;
  return requested.every((p) => p !== '*' && held.includes(p));
}
