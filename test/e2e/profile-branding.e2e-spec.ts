import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082',
  'hex',
);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

interface BrandingView {
  displayName: string | null;
  logoUrl: string | null;
  accentColor: string | null;
  supportUrl: string | null;
  hostedLogoUrl: string | null;
}

/** Each profile's branding: set with PATCH /v1/profiles/{id}, its logo fetched once and served from this host. */
describe('profile branding', () => {
  let t: TestApp;
  let tenant: Tenant;
  let logos: Server;
  let logoBase: string;
  const hits: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t, { workspaceName: 'Northwind Studio' });
    logos = createServer((req, res) => {
      hits.push(req.url!);
      if (req.url === '/logo.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      if (req.url === '/logo.svg') return res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(SVG);
      if (req.url === '/fake.png') return res.writeHead(200, { 'content-type': 'image/png' }).end('<html>no</html>');
      if (req.url === '/huge.png')
        return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([PNG, Buffer.alloc(600_000)]));
      res.writeHead(404).end();
    });
    await new Promise<void>((ok) => logos.listen(0, '127.0.0.1', ok));
    logoBase = `http://127.0.0.1:${(logos.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((ok) => logos.close(ok));
    await t.close();
  });

  const patch = (branding: unknown) =>
    t.http().patch(`/v1/profiles/${tenant.profileId}`).set(tenant.auth).send({ branding });

  it('should return empty branding on profile reads until it is set', async () => {
    const res = await t.http().get(`/v1/profiles/${tenant.profileId}`).set(tenant.auth).expect(200);
    expect(res.body.profile.branding).toEqual({
      displayName: null,
      logoUrl: null,
      accentColor: null,
      supportUrl: null,
      hostedLogoUrl: null,
    });
  });

  it.each([
    [{ displayName: 'x'.repeat(81) }, 'branding.displayName'],
    [{ displayName: '' }, 'branding.displayName'],
    [{ accentColor: 'red' }, 'branding.accentColor'],
    [{ accentColor: '#12345' }, 'branding.accentColor'],
    [{ supportUrl: 'http://example.com/help' }, 'branding.supportUrl'],
    [{ supportUrl: 'javascript:alert(1)' }, 'branding.supportUrl'],
    [{ logoUrl: 'ftp://example.com/logo.png' }, 'branding.logoUrl'],
    [{ unknown: 1 }, 'branding.unknown'],
  ])('should refuse %j with 400 naming %s, changing nothing', async (branding, field) => {
    const res = await patch(branding).expect(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field } });
    const after = await t.http().get(`/v1/profiles/${tenant.profileId}`).set(tenant.auth).expect(200);
    expect(after.body.profile.branding.displayName).toBeNull();
  });

  it.each([
    ['/missing.png', /HTTP 404/],
    ['/logo.svg', /SVG logos are not accepted/],
    ['/fake.png', /not a PNG, JPEG, WebP or GIF/],
    ['/huge.png', /larger than/],
  ])('should refuse the logo at %s with 400 naming branding.logoUrl', async (path, message) => {
    const res = await patch({ displayName: 'Acme', logoUrl: `${logoBase}${path}` }).expect(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'branding.logoUrl' } });
    expect(res.body.error.message).toMatch(message);
    const after = await t.http().get(`/v1/profiles/${tenant.profileId}`).set(tenant.auth).expect(200);
    expect(after.body.profile.branding.displayName).toBeNull(); // no partial write
  });

  it('should store the branding, fetch the logo once and serve it from this host', async () => {
    hits.length = 0;
    const res = await patch({
      displayName: 'Acme',
      logoUrl: `${logoBase}/logo.png`,
      accentColor: '#FFCC00',
      supportUrl: 'mailto:help@acme.example',
    }).expect(200);
    const b = res.body.profile.branding as BrandingView;
    expect(b).toMatchObject({
      displayName: 'Acme',
      logoUrl: `${logoBase}/logo.png`,
      accentColor: '#FFCC00',
      supportUrl: 'mailto:help@acme.example',
    });
    expect(b.hostedLogoUrl).toMatch(new RegExp(`^${t.url}/branding/${tenant.profileId}/logo\\?v=[0-9a-f]{16}$`));
    expect(hits).toEqual(['/logo.png']);

    const logo = await fetch(b.hostedLogoUrl!);
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(logo.headers.get('x-content-type-options')).toBe('nosniff');
    expect(logo.headers.get('cache-control')).toContain('immutable');
    expect(Buffer.from(await logo.arrayBuffer())).toEqual(PNG);

    // A later change of other fields keeps the logo without fetching it again (merge patch).
    const again = await patch({ accentColor: null, supportUrl: 'https://acme.example/help' }).expect(200);
    expect(again.body.profile.branding).toEqual({ ...b, accentColor: null, supportUrl: 'https://acme.example/help' });
    expect(hits).toEqual(['/logo.png']);
    const read = await t.http().get('/v1/profiles').set(tenant.auth).expect(200);
    expect(read.body.profiles[0].branding.displayName).toBe('Acme');
  });

  it('should show the branding on the hosted upload page, and the workspace name without it', async () => {
    const session = async () =>
      (await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({}).expect(201)).body as { url: string };
    const branded = await (await fetch((await session()).url)).text();
    expect(branded).toContain('<span class="brand-name">Acme</span>');
    expect(branded).toContain('Acme asks you for photos or videos.');
    expect(branded).toMatch(new RegExp(`<img src="/branding/${tenant.profileId}/logo\\?v=[0-9a-f]{16}"`));
    expect(branded).toContain('href="https://acme.example/help"');

    await patch(null).expect(200);
    const logo = await fetch(`${t.url}/branding/${tenant.profileId}/logo`);
    expect(logo.status).toBe(404);
    const plain = await (await fetch((await session()).url)).text();
    expect(plain).toContain('<span class="brand-name">Northwind Studio</span>');
    expect(plain).not.toContain('<img');
    expect(plain).not.toContain('Contact');
  });
});
