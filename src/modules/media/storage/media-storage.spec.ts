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

describe('S3MediaStorage', () => {
  const s3 = (extra: Record<string, string>) =>
    new S3MediaStorage(
      loadConfig(
        {},
        {
          MEDIA_STORAGE: 's3',
          S3_BUCKET: 'sps-media',
          S3_REGION: 'eu-west-1',
          S3_ACCESS_KEY_ID: 'AKIDEXAMPLE',
          S3_SECRET_ACCESS_KEY: 'secret',
          ...extra,
        },
      ),
    );

  it('should presign a PUT that binds the Content-Type, against an S3-compatible endpoint (path style)', async () => {
    const storage = s3({ S3_ENDPOINT: 'http://127.0.0.1:9000' });
    const url = new URL(await storage.signUpload(KEY, 'image/png', new Date(Date.now() + 900_000)));
    expect(`${url.origin}${url.pathname}`).toBe(`http://127.0.0.1:9000/sps-media/${KEY}`);
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-SignedHeaders')?.split(';')).toEqual(
      expect.arrayContaining(['content-type', 'host']),
    );
    expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeGreaterThan(890);
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    expect(storage.publicUrl(KEY)).toBe(`http://127.0.0.1:9000/sps-media/${KEY}`);
    expect(storage.uploadOrigin()).toBe('http://127.0.0.1:9000');
  });

  it('should use the virtual-hosted AWS address without an endpoint', async () => {
    const storage = s3({});
    expect(storage.publicUrl(KEY)).toBe(`https://sps-media.s3.eu-west-1.amazonaws.com/${KEY}`);
    const url = new URL(await storage.signUpload(KEY, 'video/mp4', new Date(Date.now() + 60_000)));
    expect(url.host).toBe('sps-media.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe(`/${KEY}`);
  });
});
