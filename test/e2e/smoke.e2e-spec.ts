import { createTenant, createTestApp, TestApp } from '@test/support/test-app';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it('should answer /health and the current profile', async () => {
    await t.http().get('/health').expect(200, { status: 'ok' });
    const tenant = await createTenant(t);
    const res = await t.http().get('/v1/profile').set(tenant.auth).expect(200);
    expect(res.body.profile.id).toBe(tenant.profileId);
  });
});
