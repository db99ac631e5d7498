import { loadConfig } from '@/config/config';
import { ProfileBrandingService } from './profile-branding.service';

/** Outside the sandbox (production), a logo URL must be https and on a public address. */
describe('ProfileBrandingService.fetchLogo in production settings', () => {
  const config = loadConfig(
    {},
    {
      TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      SANDBOX_PLATFORMS: 'false',
      MEDIA_ALLOW_PRIVATE_URLS: 'false',
    },
  );
  const branding = new ProfileBrandingService(null as never, config, null as never);
  afterAll(() => branding.onApplicationShutdown());

  it.each([
    ['http://example.com/logo.png', /must be at an https URL/],
    ['https://127.0.0.1/logo.png', /private or local address/],
    ['https://169.254.169.254/latest/meta-data', /private or local address/],
    ['https://[::1]/logo.png', /private or local address/],
  ])('should refuse %s with 400 naming branding.logoUrl', async (url, message) => {
    const refused = branding.fetchLogo(url);
    await expect(refused).rejects.toMatchObject({ code: 'invalid_request', details: { field: 'branding.logoUrl' } });
    await expect(refused).rejects.toThrow(message);
  });

  it('should merge a branding patch: left out keeps, null clears, all null is no branding', () => {
    const current = { displayName: 'Acme', logoUrl: null, accentColor: '#ffcc00', supportUrl: null };
    expect(branding.merge(current, { accentColor: null })).toEqual({ ...current, accentColor: null });
    expect(branding.merge(current, { displayName: null, accentColor: null })).toBeNull();
    expect(branding.merge(current, null)).toBeNull();
    expect(branding.merge(null, { supportUrl: 'mailto:a@b.c' })).toEqual({
      displayName: null,
      logoUrl: null,
      accentColor: null,
      supportUrl: 'mailto:a@b.c',
    });
  });
});
