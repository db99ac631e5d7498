import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { link, mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { AcceptedMediaType, MEDIA_KEY_PATTERN } from '../media-types';
import type { MediaStorage } from './media-storage';
import { alreadyStored, CountingSignatureCheck, signedUploadUrl } from './upload-checks';
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
    return Promise.resolve(signedUploadUrl(this.config, this.signer, key, type, expiresAt));
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
