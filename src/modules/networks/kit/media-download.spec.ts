import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DocFetch } from '@test/support/doc-fetch';
import { loadConfig } from '@/config/config';
import { PlatformError, PublishContent, PublishRequest } from './adapter';
import { PlatformRegistry } from '../network-registry';

/** Registry (and so adapters) as production builds them, sandbox off unless asked. */
function registry(env: Record<string, string> = {}): PlatformRegistry {
  return new PlatformRegistry(loadConfig({ NODE_ENV: 'test', SANDBOX_PLATFORMS: 'false', ...env }));
}

function request(content: Partial<PublishContent>): PublishRequest {
  return {
    account: { platformAccountId: 'urn:li:organization:2414183', accessToken: 'token', metadata: {} },
    content: {
      contentType: 'image',
      text: 'Hello',
      link: null,
      imageUrls: [],
      videoUrl: null,
      options: { title: 'A clip' },
      ...content,
    },
    publishState: {},
    saveState: async () => undefined,
  };
}

/**
 * Adapters download user-given media URLs through the registry's SSRF-safe fetch: a URL on a
 * loopback or private address is refused before any byte is sent (to it or to the network),
 * unless the sandbox or MEDIA_ALLOW_PRIVATE_URLS allows private addresses.
 */
describe('media downloads by adapters (SSRF)', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  const open: PlatformRegistry[] = [];
  const make = (env: Record<string, string> = {}) => {
    const r = registry(env);
    open.push(r);
    return r;
  };

  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'image/png' }).end('PNGDATA');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all(open.map((r) => r.onApplicationShutdown()));
    await new Promise((r) => server.close(r));
  });

  // The fake network (undici's global dispatcher) answers everything, the media URLs too: a download through it would succeed.
  const net = new DocFetch().eachTest((n) => {
    n.on({ url: '/a.png', text: 'PNGDATA', headers: { 'content-type': 'image/png' } });
    n.on({ url: '/v.mp4', text: 'VIDEOBYTES', headers: { 'content-type': 'video/mp4' } });
    n.on({
      url: '/rest/images?action=initializeUpload',
      json: {
        value: { uploadUrl: 'https://www.linkedin.com/dms-uploads/x', image: 'urn:li:image:C4E10AQFoyyAjHPMQuQ' },
      },
    });
    n.on({ method: 'PUT', url: 'https://www.linkedin.com/dms-uploads/', status: 201 });
    n.on({ method: 'POST', url: '/rest/posts', status: 201, headers: { 'x-restli-id': 'urn:li:share:1' } });
  });
  beforeEach(() => (hits = 0));

  it.each([
    ['127.0.0.1', () => `http://127.0.0.1:${port}/a.png`],
    ['10.0.0.1', () => 'http://10.0.0.1/a.png'],
    ['[::1]', () => `http://[::1]:${port}/a.png`],
    ['localhost (a name resolving to loopback)', () => `http://localhost:${port}/a.png`],
    ['169.254.169.254 (cloud metadata)', () => 'http://169.254.169.254/a.png'],
  ])('should refuse a LinkedIn image on %s without contacting it or LinkedIn', async (_what, url) => {
    const err = await make()
      .get('linkedin')
      .publish(request({ imageUrls: [url()] }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({
      category: 'media_rejected',
      retryable: false,
      message: expect.stringContaining('private or local address'),
    });
    expect(hits).toBe(0);
    expect(net.requests).toEqual([]);
  });

  it.each(['http://127.0.0.1/v.mp4', 'http://10.0.0.1/v.mp4'])(
    'should refuse a LinkedIn or YouTube video at %s',
    async (videoUrl) => {
      const r = make();
      for (const platform of ['linkedin', 'youtube'] as const) {
        await expect(r.get(platform).publish(request({ contentType: 'video', videoUrl }))).rejects.toMatchObject({
          category: 'media_rejected',
          retryable: false,
        });
      }
      expect(net.requests).toEqual([]);
    },
  );

  it('should refuse a media URL that is not http(s)', async () => {
    await expect(
      make()
        .get('linkedin')
        .publish(request({ imageUrls: ['file:///etc/passwd'] })),
    ).rejects.toMatchObject({ category: 'media_rejected', retryable: false });
    expect(net.requests).toEqual([]);
  });

  it('should download from a private address when MEDIA_ALLOW_PRIVATE_URLS=true', async () => {
    const result = await make({ MEDIA_ALLOW_PRIVATE_URLS: 'true' })
      .get('linkedin')
      .publish(request({ imageUrls: [`http://127.0.0.1:${port}/a.png`] }));
    expect(result.externalId).toBe('urn:li:share:1');
    expect(hits).toBe(1);
    // The bytes came from the local server through the safe fetch, not from the fake network.
    expect(net.find('/a.png')).toEqual([]);
    expect(net.find('/dms-uploads/', 'PUT')[0]?.body).toEqual(new TextEncoder().encode('PNGDATA'));
  });

  it('should download from a private address when the sandbox is on (it serves sample media locally)', async () => {
    const r = make({ SANDBOX_PLATFORMS: 'true', PUBLIC_BASE_URL: 'https://api.linkedin.com' });
    await r.get('linkedin').publish(request({ imageUrls: [`http://127.0.0.1:${port}/a.png`] }));
    expect(hits).toBe(1);
  });
});
