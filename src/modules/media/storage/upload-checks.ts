import { Transform, TransformCallback } from 'node:stream';
import { ApiError } from '@/common/errors/api-error';
import type { AppConfig } from '@/config/config';
import { AcceptedMediaType, matchesSignature, SIGNATURE_BYTES } from '../media-types';
import type { UploadSigner } from './upload-signature';

/**
 * What every driver's upload goes through: a URL of this service signed for (key, type, expiry),
 * a byte count against a limit and a file-signature check before any byte is stored, and a
 * refusal to replace a stored object.
 */
export function signedUploadUrl(
  config: AppConfig,
  signer: UploadSigner,
  key: string,
  type: AcceptedMediaType,
  expiresAt: Date,
): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const query = new URLSearchParams({ expires: String(expires), sig: signer.sign(key, type, expires) });
  return `${config.publicBaseUrl}/media/upload/${key}?${query.toString()}`;
}

export function alreadyStored(): ApiError {
  return new ApiError(
    'invalid_request',
    'A file was already uploaded to this URL; a stored file is never replaced. Request a new upload URL.',
    { field: 'key' },
  );
}

/** Passes bytes through, counting them against a limit and checking the first ones against the type. */
export class CountingSignatureCheck extends Transform {
  bytes = 0;
  private head: Buffer[] = [];
  private headBytes = 0;
  private checked = false;

  constructor(
    private readonly type: AcceptedMediaType,
    private readonly limit: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return done(new ApiError('payload_too_large'));
    if (!this.checked) {
      this.head.push(chunk);
      this.headBytes += chunk.length;
      if (this.headBytes < SIGNATURE_BYTES) return done();
      const error = this.check();
      if (error) return done(error);
      for (const part of this.head) this.push(part);
      this.head = [];
      return done();
    }
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (!this.checked && this.bytes > 0) {
      const error = this.check();
      if (error) return done(error);
      for (const part of this.head) this.push(part);
    }
    done();
  }

  assertComplete(): void {
    if (this.bytes === 0)
      throw new ApiError('invalid_request', 'The request body is empty; send the file bytes.', { field: 'body' });
  }

  private check(): ApiError | null {
    this.checked = true;
    if (matchesSignature(this.type, Buffer.concat(this.head))) return null;
    return new ApiError(
      'unsupported_media_type',
      `The bytes sent are not a ${this.type} file; send the file itself, with the type it was declared as.`,
      { field: 'body' },
    );
  }
}
