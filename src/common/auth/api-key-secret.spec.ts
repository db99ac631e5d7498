import { createHash } from 'node:crypto';
import { API_KEY_PREFIX, displayPrefix, generateApiKey, hashApiKey, isWellFormedApiKey } from './api-key-secret';

describe('API key secrets', () => {
  it('should generate svc_live_ + 40 base62 characters', () => {
    const key = generateApiKey();
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
    expect(key.startsWith(API_KEY_PREFIX)).toBe(true);
  });

  it('should never repeat a key and use the whole alphabet', () => {
    const keys = Array.from({ length: 2000 }, generateApiKey);
    expect(new Set(keys).size).toBe(keys.length);
    const chars = new Set(keys.join('').replace(/svc_live_/g, ''));
    expect(chars.size).toBe(62);
  });

  it('should hash with SHA-256 (hex), deterministically, never returning the key', () => {
    const key = generateApiKey();
    const hash = hashApiKey(key);
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hash);
    expect(hashApiKey(`${key}x`)).not.toBe(hash);
  });

  it('should accept only well-formed keys', () => {
    expect(isWellFormedApiKey(generateApiKey())).toBe(true);
    expect(isWellFormedApiKey(`svc_live_${'a'.repeat(32)}`)).toBe(true);
    expect(isWellFormedApiKey(`svc_live_${'a'.repeat(31)}`)).toBe(false);
    expect(isWellFormedApiKey(`svc_test_${'a'.repeat(40)}`)).toBe(false);
    expect(isWellFormedApiKey(`svc_live_${'a'.repeat(39)}-`)).toBe(false);
    expect(isWellFormedApiKey(`svc_live_${'a'.repeat(65)}`)).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  it('should show a prefix that identifies but cannot authenticate', () => {
    const key = generateApiKey();
    const prefix = displayPrefix(key);
    expect(prefix).toBe(key.slice(0, 15));
    expect(isWellFormedApiKey(prefix)).toBe(false);
  });
});
