import { SecretBox } from '@/common/crypto/secret-box';
import { loadConfig } from '@/config/config';
import { expiresWithin, openTokens, refreshedTokens, sealTokens } from './account-tokens';

const box = (key: number) =>
  new SecretBox(
    loadConfig({}, { TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, key).toString('base64'), TOKEN_ENCRYPTION_KEY_ID: 'k1' }),
  );

describe('account tokens', () => {
  it('should seal both tokens under the current key id and open them again', () => {
    const sealed = sealTokens(box(1), {
      accessToken: 'access-123',
      refreshToken: 'refresh-456',
      expiresAt: new Date('2030-01-01T00:00:00Z'),
    });
    expect(sealed.tokenKeyId).toBe('k1');
    expect(sealed.accessTokenEnc).not.toContain('access-123');
    expect(sealed.refreshTokenEnc).not.toContain('refresh-456');
    expect(openTokens(box(1), { id: 'a', ...sealed })).toEqual({
      accessToken: 'access-123',
      refreshToken: 'refresh-456',
    });
  });

  it('should not open with another key of the same id', () => {
    const sealed = sealTokens(box(1), { accessToken: 'access-123' });
    expect(() => openTokens(box(2), { id: 'a', ...sealed })).toThrow();
  });

  it('should keep the previous refresh token, refresh expiry and scopes when a refresh does not restate them', () => {
    const refreshExpiresAt = new Date('2031-01-01T00:00:00Z');
    const merged = refreshedTokens(
      { accessToken: 'old', refreshToken: 'r1' },
      { refreshExpiresAt, scopes: ['a'] },
      { accessToken: 'new', expiresAt: null },
    );
    expect(merged).toEqual({
      accessToken: 'new',
      refreshToken: 'r1',
      expiresAt: null,
      refreshExpiresAt,
      scopes: ['a'],
    });
    const rotated = refreshedTokens(
      { accessToken: 'old', refreshToken: 'r1' },
      { refreshExpiresAt, scopes: ['a'] },
      { accessToken: 'new', refreshToken: 'r2', refreshExpiresAt: null, scopes: ['b'] },
    );
    expect(rotated).toMatchObject({ refreshToken: 'r2', refreshExpiresAt: null, scopes: ['b'] });
  });

  it('should tell whether a token expires within a window (never for tokens without expiry)', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(expiresWithin({ tokenExpiresAt: new Date(now + 4 * 60_000) }, 5 * 60_000, now)).toBe(true);
    expect(expiresWithin({ tokenExpiresAt: new Date(now + 6 * 60_000) }, 5 * 60_000, now)).toBe(false);
    expect(expiresWithin({ tokenExpiresAt: new Date(now - 1) }, 5 * 60_000, now)).toBe(true);
    expect(expiresWithin({ tokenExpiresAt: null }, 5 * 60_000, now)).toBe(false);
  });
});
