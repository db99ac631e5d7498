import type { AppConfig } from '@/config/config';
import { SandboxMediaFetch } from './sandbox-media';

describe('SandboxMediaFetch', () => {
  const media = new SandboxMediaFetch({
    publicBaseUrl: 'http://127.0.0.1:9',
    mediaDownloads: { allowPrivateUrls: false },
  } as AppConfig);
  afterAll(() => media.onApplicationShutdown());

  it('should call a malformed http URL a media problem instead of failing the request', async () => {
    await expect(media.problem('http://', 'image')).resolves.toMatch(/could not be downloaded/);
  });

  it('should refuse a private address that is not the service itself', async () => {
    await expect(media.problem('http://10.0.0.1/a.jpg', 'image')).resolves.toMatch(/could not be downloaded/);
  });
});
