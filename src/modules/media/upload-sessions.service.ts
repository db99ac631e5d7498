import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { isUuid } from '@/common/auth/auth.service';
import { SecretBox } from '@/common/crypto/secret-box';
import { ApiError } from '@/common/errors/api-error';
import { OutboxService } from '@/common/outbox/outbox.service';
import { AppConfig } from '@/config/config';
import {
  CreateUploadSessionDto,
  SessionMediaDto,
  SessionPageCompleteDto,
  SessionPageFileDto,
  SessionPageFileResultDto,
  SessionPageRemoveDto,
  SessionPageTokenDto,
  UploadSessionDto,
} from './dto/media.dto';
import { MediaEntity } from './entities/media.entity';
import { UploadSessionEntity, UploadSessionStatus } from './entities/upload-session.entity';
import { UPLOAD_URL_TTL_MS } from './media-types';
import { ProfileBrandingService } from '../profiles/profile-branding.service';
import { MediaService } from './media.service';
import { HostedPage, uploadPage, messagePage } from './upload-session-page';

export const UPLOAD_SESSION_TTL_MS = 3600_000;
const DEFAULT_MAX_FILES = 10;

function statusOf(s: UploadSessionEntity, now = Date.now()): UploadSessionStatus {
  return s.status === 'pending' && s.expiresAt.getTime() <= now ? 'expired' : s.status;
}

/** Browser upload sessions: created and read with a key; the hosted page acts with the URL's token. */
@Injectable()
export class UploadSessionsService {
  constructor(
    @InjectRepository(UploadSessionEntity) private readonly sessions: Repository<UploadSessionEntity>,
    @InjectRepository(MediaEntity) private readonly media: Repository<MediaEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
    private readonly files: MediaService,
    private readonly branding: ProfileBrandingService,
  ) {}

  async create(auth: AuthContext, dto: CreateUploadSessionDto): Promise<UploadSessionDto> {
    const session = await this.dataSource.transaction(async (m) => {
      const saved = await m.save(
        m.create(UploadSessionEntity, {
          workspaceId: auth.workspaceId,
          profileId: auth.profileId,
          status: 'pending',
          pageTokenEnc: this.box.seal(randomBytes(32).toString('base64url')),
          redirectUrl: dto.redirectUrl ?? null,
          maxFiles: dto.maxFiles ?? DEFAULT_MAX_FILES,
          actor: actorOf(auth),
          expiresAt: new Date(Date.now() + UPLOAD_SESSION_TTL_MS),
          completedAt: null,
        }),
      );
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: auth.profileId,
        type: 'upload_session.created',
        actor: actorOf(auth),
        data: { sessionId: saved.id, maxFiles: saved.maxFiles },
      });
      return saved;
    });
    return this.toDto(session, []);
  }

  async get(auth: AuthContext, id: string): Promise<UploadSessionDto> {
    const session = isUuid(id)
      ? await this.sessions.findOne({ where: { id, workspaceId: auth.workspaceId, profileId: auth.profileId } })
      : null;
    if (!session) throw ApiError.notFound('upload session', id);
    const media =
      session.status === 'completed'
        ? await this.media.find({
            where: { sessionId: session.id, status: 'uploaded' },
            order: { createdAt: 'ASC', id: 'ASC' },
          })
        : [];
    return this.toDto(session, media);
  }

  /** GET of the hosted page. */
  async page(id: string, token: unknown): Promise<HostedPage> {
    const session = await this.findByToken(id, token);
    if (!session) return messagePage(404, 'Link not valid', 'This upload link is not valid. Ask for a new one.');
    const status = statusOf(session);
    const brand = await this.branding.brandFor(session.workspaceId, session.profileId);
    if (status === 'expired')
      return messagePage(410, 'Link expired', 'This upload link has expired. Ask for a new one.', brand);
    if (status === 'completed')
      return messagePage(200, 'Upload complete', 'The files were uploaded. You can close this page.', brand);
    const files = await this.media.find({
      where: { sessionId: session.id, status: 'uploaded' },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return uploadPage({
      action: `/media/upload-sessions/${session.id}`,
      token: String(token),
      maxFiles: session.maxFiles,
      expiresAt: session.expiresAt,
      files: files.map((f) => ({ key: f.key, fileName: f.fileName })),
      uploadOrigin: this.files.uploadOrigin(),
      selfOrigin: new URL(this.config.publicBaseUrl).origin,
      brand,
    });
  }

  /**
   * The page asks for one file's upload URL. The session's files are a set of at most `maxFiles`:
   * the uploaded ones plus those whose upload URL is still alive (a failed or abandoned upload
   * stops counting once its URL expires, or at once when the page removes it).
   */
  async issueFile(id: string, dto: SessionPageFileDto): Promise<SessionPageFileResultDto> {
    const issued = await this.dataSource.transaction(async (m) => {
      const session = await this.openSession(id, dto, m);
      const count = await m
        .createQueryBuilder(MediaEntity, 'f')
        .where('f.session_id = :id', { id: session.id })
        .andWhere(`(f.status = 'uploaded' OR f.created_at > now() - make_interval(secs => :ttl))`, {
          ttl: UPLOAD_URL_TTL_MS / 1000,
        })
        .getCount();
      if (count >= session.maxFiles)
        throw new ApiError(
          'invalid_request',
          `This link takes at most ${session.maxFiles} file${session.maxFiles === 1 ? '' : 's'}. Remove one to add another.`,
          { field: 'files' },
        );
      return this.files.issue(
        { workspaceId: session.workspaceId, profileId: session.profileId, sessionId: session.id, actor: session.actor },
        dto.fileName,
        dto.fileType,
        m,
      );
    });
    return {
      uploadUrl: issued.uploadUrl,
      publicUrl: issued.publicUrl,
      key: issued.media.key,
      fileType: issued.media.fileType,
      expiresAt: issued.expiresAt.toISOString(),
    };
  }

  /** The page removes a file from the session's set (before completion): its record and its bytes go. */
  async removeFile(id: string, dto: SessionPageRemoveDto): Promise<{ removed: boolean }> {
    const removed = await this.dataSource.transaction(async (m) => {
      const session = await this.openSession(id, dto, m);
      const file = await m.findOne(MediaEntity, { where: { sessionId: session.id, key: dto.key } });
      if (!file) return null;
      await m.delete(MediaEntity, { id: file.id });
      return file;
    });
    if (removed) await this.files.discard(removed.key);
    return { removed: removed !== null };
  }

  /** The page's last call: files whose bytes arrived become the session's media. Calling it again answers the same. */
  async complete(id: string, dto: SessionPageTokenDto): Promise<SessionPageCompleteDto> {
    const probed = await this.files.probe((await this.openSession(id, dto, undefined, true)).id);
    const { session, media } = await this.dataSource.transaction(async (m) => {
      const s = await this.openSession(id, dto, m, true);
      const uploaded = await this.files.settle(m, s.id, probed);
      if (s.status === 'completed') return { session: s, media: uploaded };
      if (uploaded.length === 0) throw new ApiError('invalid_request', 'No file was uploaded yet.', { field: 'files' });
      Object.assign(s, { status: 'completed', completedAt: new Date() });
      const saved = await m.save(s);
      const list = uploaded.map((x) => this.mediaDto(x));
      await this.outbox.record(m, {
        workspaceId: s.workspaceId,
        profileId: s.profileId,
        type: 'upload_session.completed',
        actor: s.actor,
        data: { sessionId: s.id, media: list },
      });
      return { session: saved, media: uploaded };
    });
    const redirectUrl = session.redirectUrl
      ? withQuery(session.redirectUrl, { session: session.id, status: 'completed' })
      : null;
    return { status: 'completed', redirectUrl, media: media.map((x) => this.mediaDto(x)) };
  }

  /** The session the page token opens, locked inside `m`; pending (or, with `allowCompleted`, completed) and not expired. */
  private async openSession(
    id: string,
    dto: SessionPageTokenDto,
    m?: EntityManager,
    allowCompleted = false,
  ): Promise<UploadSessionEntity> {
    const session = await this.findByToken(id, dto.token, m);
    if (!session) throw ApiError.notFound('upload session', id);
    const status = statusOf(session);
    if (status === 'expired')
      throw new ApiError('invalid_request', 'This upload link has expired.', { field: 'token' });
    if (status === 'completed' && !allowCompleted)
      throw new ApiError('invalid_request', 'This upload session is already complete.', { field: 'token' });
    return session;
  }

  private async findByToken(id: string, token: unknown, m?: EntityManager): Promise<UploadSessionEntity | null> {
    if (!isUuid(id) || typeof token !== 'string' || token.length === 0) return null;
    const repo = m ? m.getRepository(UploadSessionEntity) : this.sessions;
    const session = await repo.findOne({
      where: { id },
      ...(m ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!session) return null;
    const expected = Buffer.from(this.box.open(session.pageTokenEnc));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given) ? session : null;
  }

  private pageUrl(s: UploadSessionEntity): string {
    return `${this.config.publicBaseUrl}/media/upload-sessions/${s.id}?token=${encodeURIComponent(this.box.open(s.pageTokenEnc))}`;
  }

  private mediaDto(m: MediaEntity): SessionMediaDto {
    return {
      key: m.key,
      publicUrl: this.files.publicUrl(m.key),
      fileType: m.fileType,
      fileName: m.fileName,
      size: m.size,
    };
  }

  private toDto(s: UploadSessionEntity, media: MediaEntity[]): UploadSessionDto {
    const status = statusOf(s);
    return {
      id: s.id,
      profileId: s.profileId,
      status,
      url: status === 'pending' ? this.pageUrl(s) : null,
      redirectUrl: s.redirectUrl,
      maxFiles: s.maxFiles,
      expiresAt: s.expiresAt.toISOString(),
      createdAt: s.createdAt.toISOString(),
      completedAt: s.completedAt?.toISOString() ?? null,
      media: media.map((x) => this.mediaDto(x)),
    };
  }
}

function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}
