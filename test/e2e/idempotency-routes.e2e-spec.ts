import { concretePath, discoverRoutes } from '@test/support/routes';
import { expectError } from '@test/support/e2e-helpers';
import { createApiApp, Tenant, TestApp } from '@test/support/test-app';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

describe('Idempotency-Key on every authenticated write route', () => {
  let t: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    ({ t, tenant } = await createApiApp());
  });
  afterAll(async () => t.close());

  it('is judged on each of them (an over-long key is refused before the handler), and on no read', async () => {
    const routes = discoverRoutes(t).filter((r) => !r.isPublic && r.permission);
    const writes = routes.filter((r) => !READS.has(r.method));
    expect(writes.length).toBeGreaterThan(20);
    const tooLong = 'k'.repeat(256);
    for (const route of writes) {
      const method =
        route.method === 'ALL' ? 'post' : (route.method.toLowerCase() as 'post' | 'put' | 'patch' | 'delete');
      const res = await t
        .http()
        [method](concretePath(route.path))
        .set(tenant.auth)
        .set('Idempotency-Key', tooLong)
        .send({});
      const error = expectError(res, 400, 'invalid_request');
      expect({ route: `${route.method} ${route.path}`, details: error.details }).toEqual({
        route: `${route.method} ${route.path}`,
        details: { field: 'Idempotency-Key' },
      });
    }
    // A read ignores the header whatever it holds.
    const read = await t.http().get('/v1/profile').set(tenant.auth).set('Idempotency-Key', tooLong);
    expect(read.status).toBe(200);
  });
});
