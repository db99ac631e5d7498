import { pooledRandom } from './random-pool';

describe('pooledRandom', () => {
  it('should give distinct values of the asked size across several refills of the pool', () => {
    const hex = Array.from({ length: 2000 }, () => pooledRandom(6, 'hex'));
    const ids = Array.from({ length: 2000 }, () => pooledRandom(12, 'base64url'));
    expect(hex.every((v) => /^[0-9a-f]{12}$/.test(v))).toBe(true);
    expect(ids.every((v) => /^[A-Za-z0-9_-]{16}$/.test(v))).toBe(true);
    expect(new Set(hex).size).toBe(hex.length);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
