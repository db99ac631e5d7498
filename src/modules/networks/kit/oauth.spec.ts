import { graphTokens } from './graph/graph-login';
import { tokenExpiry } from './oauth';

describe('tokenExpiry', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('should expire a token expires_in seconds after it was given (a number or a numeric string)', () => {
    expect(tokenExpiry(3600, now)).toEqual(new Date('2026-01-01T01:00:00Z'));
    expect(tokenExpiry('3600', now)).toEqual(new Date('2026-01-01T01:00:00Z'));
  });

  it.each([
    ['missing', undefined],
    ['null', null],
    ['zero', 0],
    ['negative', -60],
    ['not a number', 'soon'],
    ['an empty string', ''],
    ['not finite', Infinity],
    ['past any date', 1e20],
  ])('should know no expiry when expires_in is %s', (_what, expiresIn) => {
    expect(tokenExpiry(expiresIn, now)).toBeNull();
  });

  it("should read Graph's token answers with the same rule", async () => {
    const given = Date.now();
    const tokens = await graphTokens(Promise.resolve({ access_token: 'a', expires_in: 60 }), []);
    expect(tokens.expiresAt!.getTime() - given).toBeGreaterThanOrEqual(60_000);
    for (const expires_in of [undefined, 0, -60, 'soon' as unknown as number])
      expect((await graphTokens(Promise.resolve({ access_token: 'a', expires_in }), [])).expiresAt).toBeNull();
  });
});
