import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createTenant, createTestApp, eventually, Tenant, TestApp } from '@test/support/test-app';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
const MP4_HEAD = Buffer.from('000000186674797069736f6d0000020069736f6d69736f32', 'hex');

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Bytes of the request body written before the answer arrived. */
  sentBeforeAnswer: number;
  ms: number;
}

/**
 * A raw PUT that keeps sending `total` bytes in 256 KiB chunks (one per tick) until the answer
 * arrives, then stops: an upload the service refuses early is never sent in full. On a new
 * kept-alive connection: one from the shared pool may be past the server's keep-alive time-out when
 * a long synchronous step (compressing a bomb) held the event loop, and be reset as it is reused.
 */
function put(
  url: string,
  headers: Record<string, string>,
  body: { total: number; chunk?: (offset: number) => Buffer } | Buffer,
): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest(url, { method: 'PUT', headers, agent: new Agent({ keepAlive: true }) }, (res) => {
      answered = true;
      const sentBeforeAnswer = sent;
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        req.destroy(); // stop sending what the service refused
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: text,
          sentBeforeAnswer,
          ms: Date.now() - started,
        });
      });
      res.on('error', reject);
    });
    req.on('error', (err) => (answered ? undefined : reject(err)));
    if (Buffer.isBuffer(body)) {
      req.end(body);
      return;
    }
    const size = 256 * 1024;
    const pump = () => {
      if (answered || req.destroyed) return;
      if (sent >= body.total) return void req.end();
      const n = Math.min(size, body.total - sent);
      const chunk = body.chunk ? body.chunk(sent).subarray(0, n) : Buffer.alloc(n);
      sent += n;
      req.write(chunk, () => setTimeout(pump, 2));
    };
    pump();
  });
}

/** Largest resident-set growth seen while `run` runs (sampled every 5 ms). */
async function peakRssGrowth<T>(run: () => Promise<T>): Promise<{ result: T; growth: number }> {
  global.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growth: peak - base };
  } finally {
    clearInterval(timer);
  }
}

describe('upload PUT: checked before the body is read, streamed, capped', () => {
  let t: TestApp;
  let tenant: Tenant;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sps-media-put-'));
    t = await createTestApp({ env: { MEDIA_LOCAL_DIR: dir, MEDIA_MAX_CONCURRENT_UPLOADS: '1' } });
    tenant = await createTenant(t);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const issue = async (fileName: string, fileType: string) =>
    (await t.http().post('/v1/media/upload').set(tenant.auth).send({ fileName, fileType }).expect(200)).body as {
      uploadUrl: string;
      key: string;
    };
  const forged = (url: string) => {
    const u = new URL(url);
    u.searchParams.set('sig', 'A'.repeat(43));
    return u.toString();
  };
  const mediaRow = async (key: string) =>
    (await t.ds.query<{ status: string; size: string }[]>(`SELECT status, size FROM media WHERE key = $1`, [key]))[0];

  it('should answer a bad signature at once, without reading a large body', async () => {
    const { uploadUrl } = await issue('big.mp4', 'video/mp4');
    const total = 64 * 1024 * 1024;
    const answer = await put(
      forged(uploadUrl),
      { 'Content-Type': 'video/mp4', 'Content-Length': String(total) },
      { total },
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'invalid_request', details: { field: 'sig' } });
    expect(answer.sentBeforeAnswer).toBeLessThan(total / 4);
  });

  it('should answer a bad signature with a gzip bomb at once, memory unmoved', async () => {
    const bomb = gzipSync(Buffer.alloc(256 * 1024 * 1024)); // ~250 KiB that inflate to 256 MiB
    const { uploadUrl } = await issue('bomb.png', 'image/png');
    const { result, growth } = await peakRssGrowth(() =>
      put(
        forged(uploadUrl),
        { 'Content-Type': 'image/png', 'Content-Encoding': 'gzip', 'Content-Length': String(bomb.length) },
        bomb,
      ),
    );
    expect(result.status).toBe(400);
    expect(JSON.parse(result.body).error.details.field).toBe('sig');
    expect(growth).toBeLessThan(48 * 1024 * 1024);
  });

  it('should refuse a compressed body with a valid signature (never inflated, nothing stored)', async () => {
    const bomb = gzipSync(Buffer.concat([PNG, Buffer.alloc(128 * 1024 * 1024)]));
    const { uploadUrl, key } = await issue('bomb.png', 'image/png');
    const { result, growth } = await peakRssGrowth(() =>
      put(uploadUrl, { 'Content-Type': 'image/png', 'Content-Encoding': 'gzip' }, bomb),
    );
    expect(result.status).toBe(415);
    expect(JSON.parse(result.body).error).toMatchObject({
      code: 'unsupported_media_type',
      details: { field: 'Content-Encoding' },
    });
    expect(growth).toBeLessThan(48 * 1024 * 1024);
    expect(await mediaRow(key)).toMatchObject({ status: 'pending', size: null });
    expect(existsSync(join(dir, key))).toBe(false);
  });

  it('should stream a large file to storage and record the bytes counted', async () => {
    const { uploadUrl, key } = await issue('clip.mp4', 'video/mp4');
    const total = 40 * 1024 * 1024;
    const answer = await put(
      uploadUrl,
      { 'Content-Type': 'video/mp4', 'Content-Length': String(total) },
      {
        total,
        chunk: (offset) =>
          offset === 0 ? Buffer.concat([MP4_HEAD, Buffer.alloc(256 * 1024)]) : Buffer.alloc(256 * 1024),
      },
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ key, size: total });
    expect(await mediaRow(key)).toMatchObject({ status: 'uploaded', size: String(total) });
    expect(readFileSync(join(dir, key)).length).toBe(total);
  });

  it('should refuse a declared body over the limit before reading it', async () => {
    const { uploadUrl, key } = await issue('huge.mp4', 'video/mp4');
    const total = 101 * 1024 * 1024;
    const answer = await put(uploadUrl, { 'Content-Type': 'video/mp4', 'Content-Length': String(total) }, { total });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('payload_too_large');
    expect(answer.sentBeforeAnswer).toBeLessThan(total / 4);
    expect(existsSync(join(dir, key))).toBe(false);
  });

  it('should cap concurrent uploads (MEDIA_MAX_CONCURRENT_UPLOADS) with 503 and Retry-After', async () => {
    const first = await issue('one.mp4', 'video/mp4');
    const second = await issue('two.png', 'image/png');
    const total = 2 * 1024 * 1024;
    // The first upload sends its head, then holds the slot until released.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const slow = new Promise<Answer>((resolve, reject) => {
      const req = httpRequest(
        first.uploadUrl,
        { method: 'PUT', headers: { 'Content-Type': 'video/mp4', 'Content-Length': String(total) } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, sentBeforeAnswer: total, ms: 0 }),
          );
        },
      );
      req.on('error', reject);
      req.write(MP4_HEAD);
      void held.then(() => req.end(Buffer.alloc(total - MP4_HEAD.length)));
    });
    // The first upload holds the slot once its bytes are being written (a .part file beside its key).
    const target = join(dir, first.key);
    await eventually(async () =>
      readdirSync(dirname(target), { withFileTypes: true }).some(
        (f) => f.name.startsWith(`${basename(target)}.`) && f.name.endsWith('.part'),
      ),
    );
    const busy = await put(second.uploadUrl, { 'Content-Type': 'image/png' }, PNG);
    expect(busy.status).toBe(503);
    expect(JSON.parse(busy.body).error.code).toBe('service_unavailable');
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);
    release();
    expect((await slow).status).toBe(200);
    expect((await put(second.uploadUrl, { 'Content-Type': 'image/png' }, PNG)).status).toBe(200);
  });
  describe('a stored object is written once, and is what it says it is', () => {
    it('should refuse a second PUT to the same URL and keep the first bytes', async () => {
      const { uploadUrl, key } = await issue('a.png', 'image/png');
      expect((await put(uploadUrl, { 'Content-Type': 'image/png' }, PNG)).status).toBe(200);
      const other = Buffer.concat([PNG, Buffer.from('different bytes')]);
      const again = await put(uploadUrl, { 'Content-Type': 'image/png' }, other);
      expect(again.status).toBe(400);
      expect(JSON.parse(again.body).error).toMatchObject({ code: 'invalid_request', details: { field: 'key' } });
      const served = await fetch(`${t.url}/media/files/${key}`);
      expect(Buffer.from(await served.arrayBuffer())).toEqual(PNG);
      expect(await mediaRow(key)).toMatchObject({ status: 'uploaded', size: String(PNG.length) });
    });

    it('should refuse bytes that do not match the declared type (file signature)', async () => {
      const { uploadUrl, key } = await issue('fake.png', 'image/png');
      const html = Buffer.from('<html><script>alert(1)</script></html>');
      const answer = await put(uploadUrl, { 'Content-Type': 'image/png' }, html);
      expect(answer.status).toBe(415);
      expect(JSON.parse(answer.body).error).toMatchObject({
        code: 'unsupported_media_type',
        details: { field: 'body' },
      });
      expect(existsSync(join(dir, key))).toBe(false);
      expect((await fetch(`${t.url}/media/files/${key}`)).status).toBe(404);
      const jpeg = await issue('photo.jpg', 'image/jpeg');
      expect((await put(jpeg.uploadUrl, { 'Content-Type': 'image/jpeg' }, PNG)).status).toBe(415);
      // The URL stays usable for the right bytes.
      expect((await put(uploadUrl, { 'Content-Type': 'image/png' }, PNG)).status).toBe(200);
    });

    it('should refuse a PUT for a file of an upload session that is already complete', async () => {
      const created = (await t.http().post('/v1/media/upload-sessions').set(tenant.auth).send({}).expect(201)).body as {
        id: string;
        url: string;
      };
      const token = new URL(created.url).searchParams.get('token')!;
      const path = `/media/upload-sessions/${created.id}`;
      const a = (
        await t.http().post(`${path}/files`).send({ token, fileName: 'a.png', fileType: 'image/png' }).expect(200)
      ).body as { uploadUrl: string; key: string };
      const b = (
        await t.http().post(`${path}/files`).send({ token, fileName: 'b.png', fileType: 'image/png' }).expect(200)
      ).body as { uploadUrl: string; key: string };
      expect((await put(a.uploadUrl, { 'Content-Type': 'image/png' }, PNG)).status).toBe(200);
      await t.http().post(`${path}/complete`).send({ token }).expect(200);
      const late = await put(b.uploadUrl, { 'Content-Type': 'image/png' }, PNG);
      expect(late.status).toBe(400);
      expect(JSON.parse(late.body).error.message).toMatch(/complete/);
      expect(existsSync(join(dir, b.key))).toBe(false);
      const session = await t.http().get(`/v1/media/upload-sessions/${created.id}`).set(tenant.auth).expect(200);
      expect((session.body as { media: { key: string }[] }).media.map((m) => m.key)).toEqual([a.key]);
    });
  });
});
