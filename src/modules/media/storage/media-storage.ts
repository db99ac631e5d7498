import type { AcceptedMediaType } from '../media-types';

/**
 * Where media bytes live. `local` (default): files on disk, PUT and GET served by this app.
 * `s3`: any S3-compatible bucket, presigned PUTs, bytes never pass through the app.
 */
export interface MediaStorage {
  readonly driver: 'local' | 's3';
  /** A URL the client PUTs the bytes to, with `Content-Type: <type>`, until `expiresAt`. */
  signUpload(key: string, type: AcceptedMediaType, expiresAt: Date): Promise<string>;
  /** Where networks and people fetch the file once uploaded. */
  publicUrl(key: string): string;
  /** Bytes stored under the key, or null when nothing is there (yet). */
  sizeOf(key: string): Promise<number | null>;
  /** Origin the browser sends bytes to (for the upload page's Content-Security-Policy). */
  uploadOrigin(): string;
}

/** Nest injection token of the configured driver. */
export const MEDIA_STORAGE = Symbol('MEDIA_STORAGE');
