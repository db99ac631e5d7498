export const PLATFORM_NAMES = ['facebook', 'instagram', 'linkedin', 'tiktok', 'youtube', 'threads'] as const;
export type PlatformName = (typeof PLATFORM_NAMES)[number];

export function isPlatformName(value: unknown): value is PlatformName {
  return typeof value === 'string' && (PLATFORM_NAMES as readonly string[]).includes(value);
}
