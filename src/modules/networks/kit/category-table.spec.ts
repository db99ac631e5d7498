import { categoryTable } from './http';

describe('categoryTable', () => {
  it('should map each code of a category to that category, a wrapped line too', () => {
    const table = categoryTable({
      auth_expired: 'expired revoked',
      network_rate_limited: `slow_down
        too_many`,
    });
    expect(new Map(table)).toEqual(
      new Map([
        ['expired', 'auth_expired'],
        ['revoked', 'auth_expired'],
        ['slow_down', 'network_rate_limited'],
        ['too_many', 'network_rate_limited'],
      ]),
    );
  });

  it('should match no inherited name', () => {
    expect(categoryTable({ network_error: 'busy' }).get('constructor')).toBeUndefined();
  });
});
