import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import { DataSource, EntityManager } from 'typeorm';
import { AuthContext, actorOf, SYSTEM_ACTOR } from '@/common/auth/auth-context';
import { ApiError } from '@/common/errors/api-error';
import type { Actor } from '@/common/outbox/event.entity';
import { OutboxService } from '@/common/outbox/outbox.service';
import { AppConfig } from '@/config/config';
import { CreateUploadDto, MediaUploadDto, SignedUploadQueryDto, SignedUrlDto, UploadedFileDto } from './dto/media.dto';
import { MediaEntity } from './entities/media.entity';
import {
  ACCEPTED_TYPE_LIST,
  baseMediaType,
  isAcceptedMediaType,
  LOCAL_MAX_UPLOAD_BYTES,
  MEDIA_KEY_PATTERN,
  mediaKey,
  mediaTypeOfKey,
  UPLOAD_URL_TTL_MS,
} from './media-types';
import { LocalMediaStorage } from './storage/local-media-storage';
import { MEDIA_STORAGE, MediaStorage } from './storage/media-storage';
import { alreadyStored } from './storage/upload-checks';
import { UploadSigner } from './storage/upload-signature';

export interface IssuedUpload {
  media: MediaEntity;
  uploadUrl: string;
  publicUrl: string;
  expiresAt: Date;
}

interface UploadScope {
  workspaceId: string;
  profileId: string;
  sessionId: string | null;
  actor: Actor;
}

/** Upload URLs (API and upload sessions), and the local driver's PUT and GET. */
@Injectable()
export class MediaService {
  private uploadsInFlight = 0;
  private readonly maxConcurrentUploads: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    @Inject(MEDIA_STORAGE) private readonly storage: MediaStorage,
    private readonly local: LocalMediaStorage,
    private readonly signer: UploadSigner,
    config: AppConfig,
  ) {
    this.maxConcurrentUploads = config.media.MEDIA_MAX_CONCURRENT_UPLOADS;
  }

  async createUpload(auth: AuthContext, dto: CreateUploadDto): Promise<MediaUploadDto> {
    const issued = await this.issue(this.scopeOf(auth), dto.fileName, dto.fileType);
    return {
      uploadUrl: issued.uploadUrl,
      signedUrl: issued.uploadUrl,
      publicUrl: issued.publicUrl,
      key: issued.media.key,
      expiresAt: issued.expiresAt.toISOString(),
    };
  }

  /** The older call: same checks (an unaccepted type is 415 here too: the file would be served publicly). */
  async createSignedUrl(auth: AuthContext, dto: CreateUploadDto): Promise<SignedUrlDto> {
    const issued = await this.issue(this.scopeOf(auth), dto.fileName, dto.fileType);
    return { signedUrl: issued.uploadUrl, publicUrl: issued.publicUrl, key: issued.media.key };
  }

  /** A pending media row and its upload URL; `m` when the caller holds a transaction (upload sessions). */
  async issue(scope: UploadScope, fileName: string, fileType: string, m?: EntityManager): Promise<IssuedUpload> {
    const type = baseMediaType(fileType);
    if (!isAcceptedMediaType(type)) {
      throw new ApiError(
        'unsupported_media_type',
        `fileType '${fileType}' is not accepted; use one of ${ACCEPTED_TYPE_LIST.join(', ')}.`,
        { field: 'fileType', accepted: ACCEPTED_TYPE_LIST },
      );
    }
    const write = async (tx: EntityManager) => {
      const media = await tx.save(
        tx.create(MediaEntity, {
          workspaceId: scope.workspaceId,
          profileId: scope.profileId,
          sessionId: scope.sessionId,
          key: mediaKey(scope.profileId, randomUUID(), type),
          fileName,
          fileType: type,
          size: null,
          status: 'pending',
          uploadedAt: null,
        }),
      );
      await this.outbox.record(tx, {
        workspaceId: scope.workspaceId,
        profileId: scope.profileId,
        type: 'media.upload_requested',
        actor: scope.actor,
        data: { key: media.key, fileName, fileType: type, sessionId: scope.sessionId },
      });
      return media;
    };
    const media = m ? await write(m) : await this.dataSource.transaction(write);
    const expiresAt = new Date(Date.now() + UPLOAD_URL_TTL_MS);
    return {
      media,
      uploadUrl: await this.storage.signUpload(media.key, type, expiresAt),
      publicUrl: this.storage.publicUrl(media.key),
      expiresAt,
    };
  }

  /**
   * The signed PUT (both drivers). Everything is checked before a byte of the body is read: the
   * driver, the key, the signature over (key, type, expiry), the expiry, the Content-Type (the
   * signed type), the Content-Encoding (none: compressed bodies are never inflated), a declared
   * Content-Length over the limit, that the file is still waiting for its bytes (a stored object is
   * written once; a completed session takes no more) and a free upload slot
   * (MEDIA_MAX_CONCURRENT_UPLOADS). The body is then streamed to storage with a byte count and a
   * file-signature check.
   */
  async receive(key: string, query: SignedUploadQueryDto, req: IncomingMessage): Promise<UploadedFileDto> {
    const type = MEDIA_KEY_PATTERN.test(key) ? mediaTypeOfKey(key) : undefined;
    if (!type) throw ApiError.notFound('upload URL');
    const expires = /^\d{1,12}$/.test(query.expires) ? Number(query.expires) : NaN;
    if (!Number.isFinite(expires) || !this.signer.verify(key, type, expires, query.sig)) {
      throw new ApiError('invalid_request', 'The upload URL signature is invalid; request a new upload URL.', {
        field: 'sig',
      });
    }
    if (expires * 1000 < Date.now())
      throw new ApiError('invalid_request', 'The upload URL has expired; request a new upload URL.', {
        field: 'expires',
      });
    if (baseMediaType(req.headers['content-type']) !== type) {
      throw new ApiError(
        'unsupported_media_type',
        `Send the file with Content-Type: ${type} (the type the upload URL was made for).`,
        { field: 'Content-Type' },
      );
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity')
      throw new ApiError(
        'unsupported_media_type',
        'Send the file bytes as they are, without Content-Encoding (compressed bodies are not accepted).',
        { field: 'Content-Encoding' },
      );
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > LOCAL_MAX_UPLOAD_BYTES) throw new ApiError('payload_too_large');
    if (declared !== undefined && Number(declared) === 0)
      throw new ApiError('invalid_request', 'The request body is empty; send the file bytes.', { field: 'body' });
    await this.assertAwaitingBytes(key);
    if (this.uploadsInFlight >= this.maxConcurrentUploads)
      throw new ApiError(
        'service_unavailable',
        'Too many uploads are in progress; try again in a few seconds.',
        undefined,
        { 'Retry-After': '5' },
      );
    this.uploadsInFlight++;
    let size: number;
    try {
      const length = declared === undefined ? undefined : Number(declared);
      size = await this.storage.writeOnce(key, type, req, LOCAL_MAX_UPLOAD_BYTES, length);
    } finally {
      this.uploadsInFlight--;
    }
    await this.dataSource.transaction(async (m) => {
      const media = await m.findOne(MediaEntity, { where: { key }, lock: { mode: 'pessimistic_write' } });
      if (!media || media.status === 'uploaded') return;
      Object.assign(media, { status: 'uploaded', size, uploadedAt: new Date() });
      await m.save(media);
      await this.outbox.record(m, {
        workspaceId: media.workspaceId,
        profileId: media.profileId,
        type: 'media.uploaded',
        actor: SYSTEM_ACTOR,
        data: { key, fileType: type, size },
      });
    });
    return { key, publicUrl: this.storage.publicUrl(key), size };
  }

  /** The file of this key exists, has no bytes yet, and its upload session (if any) still takes files. */
  private async assertAwaitingBytes(key: string): Promise<void> {
    const rows = await this.dataSource.query<{ status: string; session_status: string | null }[]>(
      `SELECT m.status, s.status AS session_status
         FROM media m LEFT JOIN media_upload_sessions s ON s.id = m.session_id
        WHERE m.key = $1`,
      [key],
    );
    const row = rows[0];
    if (!row) throw ApiError.notFound('upload URL');
    if (row.status === 'uploaded') throw alreadyStored();
    if (row.session_status === 'completed')
      throw new ApiError('invalid_request', 'This upload session is already complete; it takes no more files.', {
        field: 'key',
      });
  }

  /** The local driver's public file URL (Range requests, ETag and caching come from sendFile). */
  async serve(key: string, res: Response): Promise<void> {
    const type = this.storage.driver === 'local' && MEDIA_KEY_PATTERN.test(key) ? mediaTypeOfKey(key) : undefined;
    if (!type || (await this.local.sizeOf(key)) === null) throw ApiError.notFound('file');
    res.setHeader('Content-Type', type);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    await new Promise<void>((resolve, reject) =>
      res.sendFile(
        this.local.relativePath(key),
        { root: this.local.root, dotfiles: 'deny', maxAge: '365d', immutable: true },
        (err) => (err && !res.headersSent ? reject(err) : resolve()),
      ),
    );
  }

  /** Bytes held by the store for each file of a session (outside any transaction: for s3 it is a network call). */
  async probe(sessionId: string): Promise<Map<string, number>> {
    const rows = await this.dataSource.getRepository(MediaEntity).find({ where: { sessionId } });
    const sizes = new Map<string, number>();
    for (const media of rows) {
      const size = media.status === 'uploaded' ? media.size : await this.storage.sizeOf(media.key);
      if (size !== null) sizes.set(media.id, size);
    }
    return sizes;
  }

  /** Marks the probed files of a session uploaded; returns every uploaded file, oldest first. */
  async settle(m: EntityManager, sessionId: string, sizes: Map<string, number>): Promise<MediaEntity[]> {
    const rows = await m.find(MediaEntity, { where: { sessionId }, order: { createdAt: 'ASC', id: 'ASC' } });
    const uploaded: MediaEntity[] = [];
    for (const media of rows) {
      const size = sizes.get(media.id);
      if (media.status !== 'uploaded') {
        if (size === undefined) continue;
        Object.assign(media, { status: 'uploaded', size, uploadedAt: new Date() });
        await m.save(media);
      }
      uploaded.push(media);
    }
    return uploaded;
  }

  publicUrl(key: string): string {
    return this.storage.publicUrl(key);
  }

  /** Deletes the bytes of a file taken out of an upload session (local driver; s3 objects stay until a lifecycle rule). */
  async discard(key: string): Promise<void> {
    if (this.storage.driver === 'local' && MEDIA_KEY_PATTERN.test(key)) await this.local.remove(key);
  }

  uploadOrigin(): string {
    return this.storage.uploadOrigin();
  }

  private scopeOf(auth: AuthContext): UploadScope {
    return { workspaceId: auth.workspaceId, profileId: auth.profileId, sessionId: null, actor: actorOf(auth) };
  }
}
