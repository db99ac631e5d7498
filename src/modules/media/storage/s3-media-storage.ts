import type { Readable } from 'node:stream';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ApiError } from '@/common/errors/api-error';
import { AppConfig } from '@/config/config';
import type { AcceptedMediaType } from '../media-types';
import type { MediaStorage } from './media-storage';
import { alreadyStored, CountingSignatureCheck, signedUploadUrl } from './upload-checks';
import { UploadSigner } from './upload-signature';

/**
 * Any S3-compatible bucket. Uploads are PUT to this service's signed URL (as with the local
 * driver), which checks the file signature before a byte goes on, then streams the bytes to the
 * bucket with a conditional write (`If-None-Match: *`): an object is written once, and a second
 * write answers 412, never replacing it. The public URL assumes the objects are publicly readable
 * (bucket policy or a CDN in front); they are stored with immutable caching.
 */
export class S3MediaStorage implements MediaStorage {
  readonly driver = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(
    private readonly config: AppConfig,
    private readonly signer: UploadSigner,
  ) {
    const m = config.media;
    if (!m.S3_BUCKET) throw new Error('S3_BUCKET is required when MEDIA_STORAGE=s3');
    this.bucket = m.S3_BUCKET;
    this.client = new S3Client({
      region: m.S3_REGION,
      // Plain bodies with Content-Length (no aws-chunked checksum trailers): what every S3-compatible store takes.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      ...(m.S3_ENDPOINT ? { endpoint: m.S3_ENDPOINT, forcePathStyle: true } : {}),
      // Without explicit keys the SDK's default chain applies (environment, instance role…).
      ...(m.S3_ACCESS_KEY_ID && m.S3_SECRET_ACCESS_KEY
        ? { credentials: { accessKeyId: m.S3_ACCESS_KEY_ID, secretAccessKey: m.S3_SECRET_ACCESS_KEY } }
        : {}),
    });
  }

  signUpload(key: string, type: AcceptedMediaType, expiresAt: Date): Promise<string> {
    return Promise.resolve(signedUploadUrl(this.config, this.signer, key, type, expiresAt));
  }

  publicUrl(key: string): string {
    const endpoint = this.config.media.S3_ENDPOINT;
    if (endpoint) return `${endpoint.replace(/\/$/, '')}/${this.bucket}/${key}`;
    return `https://${this.bucket}.s3.${this.config.media.S3_REGION}.amazonaws.com/${key}`;
  }

  uploadOrigin(): string {
    return new URL(this.config.publicBaseUrl).origin;
  }

  async sizeOf(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (statusOf(err) === 404 || (err as { name?: string }).name === 'NotFound') return null;
      throw err;
    }
  }

  async writeOnce(
    key: string,
    type: AcceptedMediaType,
    source: Readable,
    limit: number,
    length?: number,
  ): Promise<number> {
    if (length === undefined || !Number.isSafeInteger(length) || length <= 0)
      throw new ApiError('invalid_request', 'Send the file with a Content-Length header (its size in bytes).', {
        field: 'Content-Length',
      });
    if (length > limit) throw new ApiError('payload_too_large');
    const checked = new CountingSignatureCheck(type, limit);
    // Not pipeline(): a refused upload must leave the request readable, so the client reads the answer.
    const stop = () => {
      source.unpipe(checked);
      checked.destroy();
    };
    source.once('error', (e) => checked.destroy(e));
    source.pipe(checked);
    try {
      // The check holds the first bytes back until they match the type: nothing reaches the bucket before.
      await new Promise<void>((ok, fail) => {
        checked.once('readable', ok);
        checked.once('end', ok);
        checked.once('error', fail);
      });
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: checked,
          ContentLength: length,
          ContentType: type,
          CacheControl: 'public, max-age=31536000, immutable',
          IfNoneMatch: '*',
        }),
      );
    } catch (err) {
      // The stream's own refusal (signature, too large) explains a failed PUT better than the SDK's error.
      const refused = checked.errored;
      stop();
      if (refused instanceof ApiError) throw refused;
      if (err instanceof ApiError) throw err;
      const status = statusOf(err);
      if (status === 412 || status === 409) throw alreadyStored();
      throw err;
    }
    checked.assertComplete();
    return checked.bytes;
  }
}

function statusOf(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}
