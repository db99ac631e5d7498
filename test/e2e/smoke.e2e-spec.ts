import { createTenant, createTestApp, TestApp } from '../support/test-app';

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

  it('should keep idle connections open longer than clients and load balancers do (65 s, announced)', async () => {
    // Node's default (5 s) races clients that reuse an idle connection at that moment: the request
    // meets a closed socket (ECONNRESET), and a load balancer with a 60 s idle time answers 502.
    const res = await fetch(`${t.url}/health`);
    await res.text();
    expect(res.headers.get('keep-alive')).toBe('timeout=65');
  });
});
