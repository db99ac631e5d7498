import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@/config/config';
import { AcceptedMediaType, MEDIA_KEY_PATTERN } from '../media-types';
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

  async signUpload(key: string, type: AcceptedMediaType, expiresAt: Date): Promise<string> {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const query = new URLSearchParams({ expires: String(expires), sig: this.signer.sign(key, type, expires) });
    return `${this.config.publicBaseUrl}/media/upload/${key}?${query.toString()}`;
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

  /** Writes to a temporary file and renames it, so a reader never sees half a file. */
  async write(key: string, bytes: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${randomBytes(6).toString('hex')}.part`;
    try {
      await writeFile(tmp, bytes);
      await rename(tmp, path);
    } finally {
      await rm(tmp, { force: true });
    }
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
