import type { Readable } from 'node:stream';
import type { AcceptedMediaType } from '../media-types';

/**
 * Where media bytes live. `local` (default): files on disk, served by this app. `s3`: any
 * S3-compatible bucket, served from there. Either way the bytes are PUT to this service first
 * (a signed URL), which checks them and writes each object once.
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
  /**
   * Stores `source` under the key once: at most `limit` bytes (413), bytes whose file signature
   * matches `type` (415, checked before anything is stored), never over an existing object (400).
   * `length` is the request's Content-Length, if it declared one. Resolves with the bytes stored.
   */
  writeOnce(key: string, type: AcceptedMediaType, source: Readable, limit: number, length?: number): Promise<number>;
}

/** Nest injection token of the configured driver. */
export const MEDIA_STORAGE = Symbol('MEDIA_STORAGE');
