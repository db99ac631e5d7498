import { createServer, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PlatformName } from '@/modules/networks/platform-name';
import { TargetPublisher } from '@/modules/posts/publishing/target-publisher';
import { connectThroughSandbox } from '@test/support/connect-flow';
import { accountsOf, targetsOf, waitForFinal } from '@test/support/publishing';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

const MAX_IMAGE = 1_000_000;
const MAX_VIDEO = 2_000_000;
const TIME_LIMIT_MS = 2_000;
const CHUNK = Buffer.alloc(64 * 1024, 7);

/**
 * Media the worker downloads itself (LinkedIn images and videos, YouTube videos) is capped per
 * type (MEDIA_MAX_IMAGE_BYTES, MEDIA_MAX_VIDEO_BYTES: on Content-Length and while streaming) and
 * in time (MEDIA_DOWNLOAD_TIMEOUT_MS per target), so a hostile URL fails its target at once as
 * media_rejected instead of filling the worker's memory or holding a publish slot for minutes.
 */
describe('media downloads: size caps and one time limit per target', () => {
  let t: TestApp;
  let tenant: Tenant;
  let server: Server;
  let base: string;
  /** Bytes the media server wrote per path: what the worker was willing to read. */
  const served = new Map<string, number>();
  const accounts = new Map<PlatformName, string>();

  /** Writes `CHUNK`s every `everyMs` until the client goes away (no end, no Content-Length). */
  function endless(res: ServerResponse, path: string, everyMs: number, chunk = CHUNK): void {
    const timer = setInterval(() => {
      if (res.destroyed || res.writableEnded) return clearInterval(timer);
      served.set(path, (served.get(path) ?? 0) + chunk.length);
      res.write(chunk);
    }, everyMs);
    res.on('close', () => clearInterval(timer));
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      const type = path.endsWith('.mp4') ? 'video/mp4' : 'image/png';
      if (path.startsWith('/declared-huge')) {
        res.writeHead(200, { 'content-type': type, 'content-length': String(500 * 1024 * 1024) });
        return endless(res, path, 20);
      }
      res.writeHead(200, { 'content-type': type });
      // Half a megabyte a write: the cap is crossed within a few timer ticks, however late a loaded loop runs them.
      if (path.startsWith('/endless')) return endless(res, path, 5, Buffer.alloc(512 * 1024, 7));
      if (path.startsWith('/slow')) return endless(res, path, 200, Buffer.from('x'));
      served.set(path, (served.get(path) ?? 0) + 1000);
      res.end(Buffer.alloc(1000, 1));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    t = await createTestApp({
      env: {
        MEDIA_MAX_IMAGE_BYTES: String(MAX_IMAGE),
        MEDIA_MAX_VIDEO_BYTES: String(MAX_VIDEO),
        MEDIA_DOWNLOAD_TIMEOUT_MS: String(TIME_LIMIT_MS),
      },
    });
    t.app.get(TargetPublisher).setRetryPolicy({ baseDelayMs: 50, maxDelayMs: 200 });
    tenant = await createTenant(t);
    for (const platform of ['linkedin', 'youtube', 'facebook'] as const) {
      await connectThroughSandbox(t, tenant, platform);
      const account = (await accountsOf(t, tenant.profileId)).find((a) => a.platform === platform);
      accounts.set(platform, account!.id);
    }
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await t.close();
  });

  async function publish(
    platform: PlatformName,
    mediaUrl: string,
  ): Promise<{ category: unknown; error: string | null | undefined; ms: number }> {
    const started = Date.now();
    const res = await t
      .http()
      .post('/v1/posts')
      .set(tenant.auth)
      .send({
        content: `Media limits ${Date.now()} ${Math.random()}`,
        accountIds: [accounts.get(platform)],
        mediaUrls: [mediaUrl],
        platforms: { youtube: { title: 'A clip' } },
        publishNow: true,
      });
    expect(res.status).toBe(201);
    expect(await waitForFinal(t, res.body.id as string)).toBe('failed');
    const [target] = await targetsOf(t, res.body.id as string);
    return { category: target?.errorCategory, error: target?.error, ms: Date.now() - started };
  }

  it.each([
    ['linkedin', '/declared-huge.png', 'an image whose Content-Length is over the image cap'],
    ['linkedin', '/endless.png', 'an image that streams past the image cap'],
    ['linkedin', '/endless.mp4', 'a video that streams past the video cap'],
    ['youtube', '/declared-huge.mp4', 'a video whose Content-Length is over the video cap'],
    ['youtube', '/endless.mp4?yt', 'a video that streams past the video cap'],
  ] as const)(
    'should fail a %s target at once on %s (%s), reading no more than the cap',
    async (platform, path, _why) => {
      const heapBefore = process.memoryUsage().heapUsed;
      const { category, error } = await publish(platform, `${base}${path}`);
      expect(category).toBe('media_rejected');
      const cap = path.includes('.mp4') ? MAX_VIDEO : MAX_IMAGE;
      // At once: the cap ended it, not the time limit (a cause, not a duration).
      expect(error).toContain(`larger than the ${path.includes('.mp4') ? 'video' : 'image'} limit of ${cap} bytes`);
      // The worker stopped reading at the cap (plus what sockets buffer), not after the whole body.
      expect(served.get(path) ?? 0).toBeLessThan(cap + 8 * 1024 * 1024);
      expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
    },
  );

  it.each([
    ['linkedin', '/slow.png'],
    ['youtube', '/slow.mp4'],
  ] as const)('should fail a %s target when its media trickles in past the time limit (%s)', async (platform, path) => {
    const { category, error, ms } = await publish(platform, `${base}${path}`);
    expect(category).toBe('media_rejected');
    // The time limit ended it (the trickle itself never ends), not before its time.
    expect(error).toContain(`within the time limit of ${TIME_LIMIT_MS} ms`);
    expect(ms).toBeGreaterThanOrEqual(TIME_LIMIT_MS);
  });

  it("should not let a simulator fetch media on a private address other than the service's own sample media", async () => {
    // Facebook pulls the URL itself; in sandbox mode the simulator downloads it, through the
    // SSRF-safe agent: a loopback address that is not this service's is refused unhit.
    const { category } = await publish('facebook', `${base}/fine.png`);
    expect(category).toBe('media_rejected');
    expect(served.get('/fine.png')).toBeUndefined();
  });
});
