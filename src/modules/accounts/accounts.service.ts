import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsWhere, In, Not, Repository } from 'typeorm';
import { AuthContext, actorOf } from '@/common/auth/auth-context';
import { isUuid } from '@/common/auth/auth.service';
import { ApiError } from '@/common/errors/api-error';
import { OutboxService } from '@/common/outbox/outbox.service';
import { WIPED_TOKENS } from './account-tokens';
import {
  AccountDto,
  AccountListDto,
  AccountResponseDto,
  ListAccountsQueryDto,
  SocialPageListDto,
  UpdateAccountDto,
} from './dto/account.dto';
import { SocialAccountEntity } from './entities/social-account.entity';

export function toAccountDto(a: SocialAccountEntity): AccountDto {
  return {
    id: a.id,
    profileId: a.profileId,
    platform: a.platform,
    platformAccountId: a.platformAccountId,
    name: a.name,
    username: a.username,
    avatarUrl: a.avatarUrl,
    status: a.status,
    commentSync: a.commentSync,
    connectedAt: a.connectedAt.toISOString(),
    tokenExpiresAt: a.tokenExpiresAt?.toISOString() ?? null,
  };
}

export type ActiveAccount = Pick<SocialAccountEntity, 'id' | 'platform' | 'name'>;

/** Reading and managing the connected accounts of the caller's profile. */
@Injectable()
export class AccountsService {
  constructor(
    @InjectRepository(SocialAccountEntity) private readonly accounts: Repository<SocialAccountEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
  ) {}

  /** The profile's accounts that can publish now, oldest connection first. */
  active(m: EntityManager, auth: Pick<AuthContext, 'workspaceId' | 'profileId'>): Promise<ActiveAccount[]> {
    return m.find(SocialAccountEntity, {
      select: { id: true, platform: true, name: true },
      where: { workspaceId: auth.workspaceId, profileId: auth.profileId, status: 'active' },
      order: { connectedAt: 'ASC', id: 'ASC' },
    });
  }

  /**
   * `active` as a scalar subquery (a json array, same rows, same order) to embed in a caller's own
   * statement; `workspaceId` and `profileId` are SQL expressions.
   */
  activeSql(workspaceId: string, profileId: string): string {
    return `(SELECT coalesce(json_agg(json_build_object('id', a.id, 'platform', a.platform, 'name', a.name) ORDER BY a.connected_at, a.id), '[]')
               FROM social_accounts a WHERE a.workspace_id = ${workspaceId} AND a.profile_id = ${profileId} AND a.status = 'active')`;
  }

  /** Accounts of the profile that are not disconnected (a profile with any cannot be deleted). */
  async countConnected(m: EntityManager, profileId: string): Promise<number> {
    const [row] = await m.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM social_accounts WHERE profile_id = $1 AND status <> 'disconnected'`,
      [profileId],
    );
    return row?.n ?? 0;
  }

  async list(auth: AuthContext, query: ListAccountsQueryDto): Promise<AccountListDto> {
    return { accounts: (await this.findConnected(auth, query)).map(toAccountDto) };
  }

  async listPages(auth: AuthContext, query: ListAccountsQueryDto): Promise<SocialPageListDto> {
    const rows = await this.findConnected(auth, query);
    return {
      pages: rows.map((a) => ({
        id: a.id,
        platform: a.platform,
        platformPageId: a.platformAccountId,
        pageName: a.name,
      })),
    };
  }

  async get(auth: AuthContext, id: string): Promise<AccountResponseDto> {
    return { account: toAccountDto(await this.findVisible(auth, id)) };
  }

  /** Accounts by id inside one profile, in the order given (connect sessions show what they connected). */
  async findByIds(
    scope: Pick<AuthContext, 'workspaceId' | 'profileId'> & { accountIds?: string[] | null },
    ids: string[],
  ): Promise<AccountDto[]> {
    const visible = scope.accountIds ? ids.filter((id) => scope.accountIds!.includes(id)) : ids;
    if (visible.length === 0) return [];
    const rows = await this.accounts.find({
      where: { id: In(visible), workspaceId: scope.workspaceId, profileId: scope.profileId },
    });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return visible.flatMap((id) => {
      const row = byId.get(id);
      return row ? [toAccountDto(row)] : [];
    });
  }

  async update(auth: AuthContext, id: string, dto: UpdateAccountDto): Promise<AccountResponseDto> {
    const account = await this.dataSource.transaction(async (m) => {
      const found = await this.findVisible(auth, id, m.getRepository(SocialAccountEntity), true);
      if (dto.commentSync !== undefined) found.commentSync = dto.commentSync;
      const saved = await m.save(found);
      const changed = Object.keys(dto).filter((k) => k !== 'profileId');
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: saved.profileId,
        type: 'account.updated',
        actor: actorOf(auth),
        data: { account: toAccountDto(saved), changed },
      });
      return saved;
    });
    return { account: toAccountDto(account) };
  }

  /** Wipes the tokens and fires `account.disconnected`; disconnecting twice changes nothing. */
  async disconnect(auth: AuthContext, id: string): Promise<AccountResponseDto> {
    const account = await this.dataSource.transaction(async (m) => {
      const found = await this.findVisible(auth, id, m.getRepository(SocialAccountEntity), true);
      if (found.status === 'disconnected') return found;
      Object.assign(found, WIPED_TOKENS, { status: 'disconnected', disconnectedAt: new Date() });
      const saved = await m.save(found);
      await this.outbox.record(m, {
        workspaceId: auth.workspaceId,
        profileId: saved.profileId,
        type: 'account.disconnected',
        actor: actorOf(auth),
        data: { account: toAccountDto(saved), reason: 'requested' },
      });
      return saved;
    });
    return { account: toAccountDto(account) };
  }

  /** The accounts of the caller's profile the key may see that are not disconnected, oldest first (or only `id`). */
  findConnected(
    auth: AuthContext,
    query: Pick<ListAccountsQueryDto, 'platform'> & { id?: string },
  ): Promise<SocialAccountEntity[]> {
    const where: FindOptionsWhere<SocialAccountEntity> = {
      workspaceId: auth.workspaceId,
      profileId: auth.profileId,
      status: Not('disconnected'),
      ...(auth.accountIds ? { id: In(auth.accountIds) } : {}),
      ...(query.id ? { id: query.id } : {}),
      ...(query.platform ? { platform: query.platform } : {}),
    };
    return this.accounts.find({ where, order: { connectedAt: 'ASC', id: 'ASC' } });
  }

  /** An account of the caller's profile that the key may see (and lock, inside a transaction); 404 otherwise. */
  private async findVisible(
    auth: AuthContext,
    id: string,
    repo = this.accounts,
    lock = false,
  ): Promise<SocialAccountEntity> {
    if (!isUuid(id) || (auth.accountIds && !auth.accountIds.includes(id))) throw ApiError.notFound('account', id);
    const found = await repo.findOne({
      where: { id, workspaceId: auth.workspaceId, profileId: auth.profileId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!found) throw ApiError.notFound('account', id);
    return found;
  }
}
