import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { loadConfig } from '@/config/config';
import { S3MediaStorage } from './s3-media-storage';
import { UploadSigner } from './upload-signature';

const KEY = '3f2b9c7e-1111-4222-8333-444455556666/7a1b2c3d-aaaa-4bbb-8ccc-ddddeeeeffff.png';

describe('UploadSigner', () => {
  const config = loadConfig({}, { TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') });
  const signer = new UploadSigner(config);

  it('should verify its own signature and nothing that differs in key, type, expiry or signature', () => {
    const sig = signer.sign(KEY, 'image/png', 1_900_000_000);
    expect(signer.verify(KEY, 'image/png', 1_900_000_000, sig)).toBe(true);
    expect(signer.verify(KEY.replace('.png', '.gif'), 'image/png', 1_900_000_000, sig)).toBe(false);
    expect(signer.verify(KEY, 'image/gif', 1_900_000_000, sig)).toBe(false);
    expect(signer.verify(KEY, 'image/png', 1_900_000_001, sig)).toBe(false);
    expect(signer.verify(KEY, 'image/png', 1_900_000_000, `${sig.slice(0, -2)}AA`)).toBe(false);
    expect(signer.verify(KEY, 'image/png', 1_900_000_000, '')).toBe(false);
  });

  it('should keep verifying URLs signed before a key rotation, and not with an unrelated key', () => {
    const oldKey = Buffer.alloc(32, 1).toString('base64');
    const rotated = new UploadSigner(
      loadConfig(
        {},
        {
          TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 2).toString('base64'),
          TOKEN_ENCRYPTION_KEY_ID: 'k2',
          TOKEN_ENCRYPTION_OLD_KEYS: `k1:${oldKey}`,
        },
      ),
    );
    const sig = signer.sign(KEY, 'image/png', 1_900_000_000);
    expect(rotated.verify(KEY, 'image/png', 1_900_000_000, sig)).toBe(true);
    const stranger = new UploadSigner(loadConfig({}, { TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64') }));
    expect(stranger.verify(KEY, 'image/png', 1_900_000_000, sig)).toBe(false);
  });
});

/**
 * The s3 driver against a recording HTTP endpoint (S3_ENDPOINT, path style): the real SDK code
 * path, with the endpoint answering as S3 does (200, or 412 when If-None-Match: * finds an object).
 */
describe('S3MediaStorage', () => {
  const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  let server: Server;
  let endpoint: string;
  let received: { method: string; url: string; headers: IncomingHttpHeaders; body: Buffer }[];
  let answer: { status: number; body: string };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(answer.status, { 'content-type': 'application/xml' }).end(answer.body);
      });
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((ok) => server.close(ok)));
  beforeEach(() => {
    received = [];
    answer = { status: 200, body: '' };
  });

  const s3 = (extra: Record<string, string> = {}) => {
    const config = loadConfig(
      {},
      {
        TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
        PUBLIC_BASE_URL: 'https://api.example.com',
        MEDIA_STORAGE: 's3',
        S3_BUCKET: 'sps-media',
        S3_REGION: 'eu-west-1',
        S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        S3_SECRET_ACCESS_KEY: 'secret',
        S3_ENDPOINT: endpoint,
        ...extra,
      },
    );
    return new S3MediaStorage(config, new UploadSigner(config));
  };

  it("should hand out this service's signed upload URL and the bucket's public URL", async () => {
    const storage = s3();
    const url = new URL(await storage.signUpload(KEY, 'image/png', new Date(Date.now() + 900_000)));
    expect(`${url.origin}${url.pathname}`).toBe(`https://api.example.com/media/upload/${KEY}`);
    const expires = Number(url.searchParams.get('expires'));
    expect(
      new UploadSigner(loadConfig({}, { TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64') })).verify(
        KEY,
        'image/png',
        expires,
        url.searchParams.get('sig')!,
      ),
    ).toBe(true);
    expect(storage.publicUrl(KEY)).toBe(`${endpoint}/sps-media/${KEY}`);
    expect(storage.uploadOrigin()).toBe('https://api.example.com');
    const aws = s3({ S3_ENDPOINT: '' });
    expect(aws.publicUrl(KEY)).toBe(`https://sps-media.s3.eu-west-1.amazonaws.com/${KEY}`);
  });

  it('should write the checked bytes once: a signed conditional PUT (If-None-Match: *) with the type', async () => {
    const body = Buffer.concat([PNG, Buffer.alloc(1000, 7)]);
    await expect(s3().writeOnce(KEY, 'image/png', Readable.from([body]), 10_000, body.length)).resolves.toBe(
      body.length,
    );
    expect(received).toHaveLength(1);
    const put = received[0];
    expect(put).toMatchObject({ method: 'PUT', url: `/sps-media/${KEY}?x-id=PutObject` });
    expect(put.headers).toMatchObject({
      'if-none-match': '*',
      'content-type': 'image/png',
      'content-length': String(body.length),
      'cache-control': 'public, max-age=31536000, immutable',
    });
    expect(put.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request, SignedHeaders=[^,]*if-none-match/,
    );
    expect(put.body).toEqual(body);
  });

  it('should refuse bytes that are not of the declared type before sending anything to the bucket', async () => {
    const body = Buffer.from('<html><script>alert(1)</script></html>');
    await expect(s3().writeOnce(KEY, 'image/png', Readable.from([body]), 10_000, body.length)).rejects.toMatchObject({
      code: 'unsupported_media_type',
      details: { field: 'body' },
    });
    expect(received).toEqual([]);
  });

  it('should answer "already stored" when the bucket already holds the key (412), replacing nothing', async () => {
    answer = {
      status: 412,
      body: '<Error><Code>PreconditionFailed</Code><Message>At least one of the pre-conditions you specified did not hold</Message></Error>',
    };
    await expect(s3().writeOnce(KEY, 'image/png', Readable.from([PNG]), 10_000, PNG.length)).rejects.toMatchObject({
      code: 'invalid_request',
      details: { field: 'key' },
    });
    expect(received[0].headers['if-none-match']).toBe('*');
  });

  it('should refuse a body without Content-Length, or over the limit, before sending anything', async () => {
    await expect(s3().writeOnce(KEY, 'image/png', Readable.from([PNG]), 10_000)).rejects.toMatchObject({
      code: 'invalid_request',
      details: { field: 'Content-Length' },
    });
    await expect(s3().writeOnce(KEY, 'image/png', Readable.from([PNG]), 8, PNG.length)).rejects.toMatchObject({
      code: 'payload_too_large',
    });
    expect(received).toEqual([]);
  });
});
