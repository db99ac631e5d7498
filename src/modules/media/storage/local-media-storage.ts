import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { link, mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable, Transform, TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { ApiError } from '@/common/errors/api-error';
import { AppConfig } from '@/config/config';
import { AcceptedMediaType, matchesSignature, MEDIA_KEY_PATTERN, SIGNATURE_BYTES } from '../media-types';
import type { MediaStorage } from './media-storage';
import { UploadSigner } from './upload-signature';

/** Files under MEDIA_LOCAL_DIR; upload and download URLs are routes of this app (media-files.controller). */
@Injectable()
export class LocalMediaStorage implements MediaStorage {
  readonly driver = 'local' as const;
  readonly root: string;

  constructor(
    private readonly config: AppConfig,
    private readonly signer: UploadSigner,
  ) {
    this.root = resolve(config.media.MEDIA_LOCAL_DIR);
  }

  signUpload(key: string, type: AcceptedMediaType, expiresAt: Date): Promise<string> {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const query = new URLSearchParams({ expires: String(expires), sig: this.signer.sign(key, type, expires) });
    return Promise.resolve(`${this.config.publicBaseUrl}/media/upload/${key}?${query.toString()}`);
  }

  publicUrl(key: string): string {
    return `${this.config.publicBaseUrl}/media/files/${key}`;
  }

  uploadOrigin(): string {
    return new URL(this.config.publicBaseUrl).origin;
  }

  async sizeOf(key: string): Promise<number | null> {
    const found = await stat(this.pathOf(key)).catch(() => null);
    return found?.isFile() ? found.size : null;
  }

  /**
   * Streams `source` into the key, once: counts the bytes (at most `limit`, else 413), checks the
   * file signature against `type` (else 415), writes a temporary file and links it into place,
   * which fails if the key already holds a file (400: a stored object is never replaced).
   * Resolves with the bytes stored; nothing is left behind on failure.
   */
  async writeOnce(key: string, type: AcceptedMediaType, source: Readable, limit: number): Promise<number> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${randomBytes(6).toString('hex')}.part`;
    const counter = new CountingSignatureCheck(type, limit);
    try {
      await pipeline(source, counter, createWriteStream(tmp, { flags: 'wx' }));
      counter.assertComplete();
      await link(tmp, path).catch((err: NodeJS.ErrnoException) => {
        throw err.code === 'EEXIST' ? alreadyStored() : err;
      });
      return counter.bytes;
    } finally {
      await rm(tmp, { force: true });
    }
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  /** Path relative to `root` (for res.sendFile's `root` option, which refuses `..`). */
  relativePath(key: string): string {
    if (!MEDIA_KEY_PATTERN.test(key)) throw new Error(`Not a media key: ${key}`);
    return key;
  }

  private pathOf(key: string): string {
    return join(this.root, this.relativePath(key));
  }
}

export function alreadyStored(): ApiError {
  return new ApiError(
    'invalid_request',
    'A file was already uploaded to this URL; a stored file is never replaced. Request a new upload URL.',
    { field: 'key' },
  );
}

/** Passes bytes through, counting them against a limit and checking the first ones against the type. */
class CountingSignatureCheck extends Transform {
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
