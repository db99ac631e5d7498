import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { AppConfig } from '@/config/config';
import type { AcceptedMediaType } from '../media-types';
import type { MediaStorage } from './media-storage';

/**
 * Any S3-compatible bucket. Uploads are presigned PUTs (Content-Type is part of the signature);
 * the public URL assumes the objects are publicly readable (bucket policy or a CDN in front).
 * The bucket's CORS rules must allow PUT from PUBLIC_BASE_URL for the hosted upload page.
 */
export class S3MediaStorage implements MediaStorage {
  readonly driver = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(private readonly config: AppConfig) {
    const m = config.media;
    if (!m.S3_BUCKET) throw new Error('S3_BUCKET is required when MEDIA_STORAGE=s3');
    this.bucket = m.S3_BUCKET;
    this.client = new S3Client({
      region: m.S3_REGION,
      ...(m.S3_ENDPOINT ? { endpoint: m.S3_ENDPOINT, forcePathStyle: true } : {}),
      // Without explicit keys the SDK's default chain applies (environment, instance role…).
      ...(m.S3_ACCESS_KEY_ID && m.S3_SECRET_ACCESS_KEY
        ? { credentials: { accessKeyId: m.S3_ACCESS_KEY_ID, secretAccessKey: m.S3_SECRET_ACCESS_KEY } }
        : {}),
    });
  }

  signUpload(key: string, type: AcceptedMediaType, expiresAt: Date): Promise<string> {
    const expiresIn = Math.max(1, Math.floor((expiresAt.getTime() - Date.now()) / 1000));
    return getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: type }), {
      expiresIn,
      signableHeaders: new Set(['content-type']),
    });
  }

  publicUrl(key: string): string {
    const endpoint = this.config.media.S3_ENDPOINT;
    if (endpoint) return `${endpoint.replace(/\/$/, '')}/${this.bucket}/${key}`;
    return `https://${this.bucket}.s3.${this.config.media.S3_REGION}.amazonaws.com/${key}`;
  }

  uploadOrigin(): string {
    return new URL(this.publicUrl('x')).origin;
  }

  async sizeOf(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (err as { name?: string }).name === 'NotFound') return null;
      throw err;
    }
  }
}
