import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThanOrEqual, Repository } from 'typeorm';
import { AuthContext, actorOf, SYSTEM_ACTOR } from '@/common/auth/auth-context';
import { isUuid } from '@/common/auth/auth.service';
import { SecretBox } from '@/common/crypto/secret-box';
import { ApiError } from '@/common/errors/api-error';
import type { Actor } from '@/common/outbox/event.entity';
import { OutboxService } from '@/common/outbox/outbox.service';
import { AppConfig } from '@/config/config';
import { AccountsService } from '../accounts/accounts.service';
import { EntitlementsService } from '../plans/entitlements.service';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { PlatformName } from '@/modules/networks/platform-name';
import { ConnectSessionDto } from './dto/connect.dto';
import { ConnectSessionEntity, ConnectSessionError } from './entities/connect-session.entity';

export const SESSION_TTL_MS = 3600_000;
const EXPIRE_BATCH = 200;
export const EXPIRED: ConnectSessionError = {
  code: 'expired',
  message: 'The connection was not completed within an hour.',
};

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Connect sessions through the API (create, read) and the lifecycle shared with the hosted flow. */
@Injectable()
export class ConnectSessionsService {
  constructor(
    @InjectRepository(ConnectSessionEntity) private readonly sessions: Repository<ConnectSessionEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
    private readonly entitlements: EntitlementsService,
    private readonly platforms: PlatformRegistry,
    private readonly accounts: AccountsService,
  ) {}

  async create(auth: AuthContext, platform: PlatformName, redirectUrl: string | undefined): Promise<ConnectSessionDto> {
    // GET /v1/connect/:platform creates a session too, so the guard's write-only trial check does not cover it.
    if (auth.plan === 'trial' && auth.trialEndsAt && auth.trialEndsAt.getTime() < Date.now())
      throw new ApiError('trial_expired');
    this.entitlements.assertFeature(auth, 'hosted_connect');
    this.platforms.get(platform); // 400 when the network is not available in this deployment
    const token = randomToken();
    const session = await this.dataSource.transaction(async (m) => {
      const saved = await m.save(
        m.create(ConnectSessionEntity, {
          workspaceId: auth.workspaceId,
          profileId: auth.profileId,
          platform,
          status: 'pending',
          redirectUrl: redirectUrl ?? null,
          actor: actorOf(auth),
          pageTokenEnc: this.box.seal(token),
          expiresAt: new Date(Date.now() + SESSION_TTL_MS),
        }),
      );
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: auth.profileId,
        type: 'connection.started',
        actor: actorOf(auth),
        data: { sessionId: saved.id, platform },
      });
      return saved;
    });
    return this.toDto(session, []);
  }

  async get(auth: AuthContext, id: string): Promise<ConnectSessionDto> {
    const session = isUuid(id)
      ? await this.sessions.findOne({ where: { id, workspaceId: auth.workspaceId, profileId: auth.profileId } })
      : null;
    if (!session) throw ApiError.notFound('connect session', id);
    return this.toDto(session, await this.accounts.findByIds(auth, session.accountIds));
  }

  /** The `expire-connect-sessions` job: pending sessions past their hour become `expired` (with `connection.failed`). */
  async expireDue(now = new Date()): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const due = await m.find(ConnectSessionEntity, {
        where: { status: 'pending', expiresAt: LessThanOrEqual(now) },
        order: { expiresAt: 'ASC' },
        take: EXPIRE_BATCH,
        lock: { mode: 'pessimistic_write', onLocked: 'skip_locked' },
      });
      for (const s of due) await this.finishUnsuccessfully(m, s, 'expired', EXPIRED);
      return due.length;
    });
  }

  /** Ends a session as `failed` or `expired`, dropping its secrets, with `connection.failed` in the same transaction. */
  async finishUnsuccessfully(
    m: EntityManager,
    s: ConnectSessionEntity,
    status: 'failed' | 'expired',
    error: ConnectSessionError,
    actor: Actor = SYSTEM_ACTOR,
  ): Promise<ConnectSessionEntity> {
    Object.assign(s, {
      status,
      error,
      oauthStateHash: null,
      codeVerifierEnc: null,
      pendingGrantEnc: null,
      finishedAt: new Date(),
    });
    const saved = await m.save(s);
    await this.outbox.record(m, {
      workspaceId: s.workspaceId,
      profileId: s.profileId,
      type: 'connection.failed',
      actor,
      data: { sessionId: s.id, platform: s.platform, status, error },
    });
    return saved;
  }

  /** The hosted page's address; it carries the session's token. */
  pageUrl(s: ConnectSessionEntity, suffix = ''): string {
    return `${this.config.publicBaseUrl}/connect/${s.id}${suffix}?token=${encodeURIComponent(this.box.open(s.pageTokenEnc))}`;
  }

  private toDto(s: ConnectSessionEntity, accounts: ConnectSessionDto['accounts']): ConnectSessionDto {
    return {
      id: s.id,
      platform: s.platform,
      profileId: s.profileId,
      status: s.status,
      url: s.status === 'pending' ? this.pageUrl(s) : null,
      redirectUrl: s.redirectUrl,
      expiresAt: s.expiresAt.toISOString(),
      createdAt: s.createdAt.toISOString(),
      accounts,
      error: s.error,
    };
  }
}
