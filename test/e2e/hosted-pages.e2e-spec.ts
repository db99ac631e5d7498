import { createTestApp, TestApp } from '@test/support/test-app';

/** Hosted links are opened by people: a mangled one answers a page, never the API's JSON. */
describe('mangled hosted links', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  it.each([
    '/connect/',
    '/connect',
    '/connect/3f2b9c7e-1111-4222-8333-444455556666/foo',
    '/connect/callback/',
    '/media/upload-sessions/',
    '/media/upload-sessions/3f2b9c7e-1111-4222-8333-444455556666/foo?token=x',
  ])('should answer %s with an HTML 404 page', async (path) => {
    const res = await fetch(`${t.url}${path}`, { redirect: 'manual' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('<h1>Link not valid</h1>');
    expect(html).not.toContain('"error"');
  });

  it('should keep the API answering JSON for unknown routes', async () => {
    const res = await fetch(`${t.url}/v1/connect/nope/nope/nope`);
    expect(res.headers.get('content-type')).toMatch(/json/);
  });
});
