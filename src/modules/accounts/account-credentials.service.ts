import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, IsNull, LessThan, Repository } from 'typeorm';
import { SYSTEM_ACTOR } from '@/common/auth/auth-context';
import { SecretBox } from '@/common/crypto/secret-box';
import { OutboxService } from '@/common/outbox/outbox.service';
import { entityFromJson, entityFromRow, preparedQuery } from '@/database/plain-query';
import { AccountCredentials, PlatformError } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import { expiresWithin, openTokens, refreshedTokens, sealTokens } from './account-tokens';
import { toAccountDto } from './accounts.service';
import { SocialAccountEntity } from './entities/social-account.entity';

/** Publishing refreshes a token that would lapse mid-publish. */
const PUBLISH_REFRESH_WINDOW_MS = 5 * 60_000;
/** The periodic job refreshes a day ahead, so a network outage has time to pass. */
const BACKGROUND_REFRESH_WINDOW_MS = 24 * 3600_000;
/**
 * …but at most this often per account: short-lived tokens (Google's hour, TikTok's day) are always
 * "within 24 h"; publishing refreshes those on demand, the job only keeps their grant alive.
 */
const BACKGROUND_MIN_INTERVAL_MS = 12 * 3600_000;
const REFRESH_BATCH = 200;

/**
 * How long an account row read with the publish run's targets stands in for reading it again
 * when the target's turn comes (after its network slot): the usual wait is none; a longer one
 * (a busy network's cap) reads the account again, so a disconnect or a refresh is seen as before.
 */
const PREFETCH_FRESH_MS = 1000;

/** An account row read with the targets (publishingRowSql's value; null: no such account) and when. */
export interface PublishingAccountRead {
  row: Record<string, unknown> | null;
  at: number;
}

type LockWait = 'wait' | 'skip';
interface RefreshOutcome {
  account: SocialAccountEntity | null;
  refreshed: boolean;
  expired?: PlatformError;
}
type Due = (account: SocialAccountEntity) => boolean;

const dueForPublishing: Due = (a) => expiresWithin(a, PUBLISH_REFRESH_WINDOW_MS);

function dueInBackground(now: Date): Due {
  return (a) =>
    expiresWithin(a, BACKGROUND_REFRESH_WINDOW_MS, now.getTime()) &&
    (!a.tokenIssuedAt || now.getTime() - a.tokenIssuedAt.getTime() >= BACKGROUND_MIN_INTERVAL_MS);
}

export interface RefreshRun {
  refreshed: number;
  expired: number;
  failed: number;
  skipped: number;
}

/**
 * Decrypted credentials for the workers, and token refresh. A refresh runs under a row lock
 * (SELECT … FOR UPDATE) and re-checks expiry once it holds it: networks with rotating refresh
 * tokens invalidate the old one on use, so two processes must never refresh the same account.
 */
@Injectable()
export class AccountCredentialsService {
  private readonly logger = new Logger('AccountCredentials');

  constructor(
    @InjectRepository(SocialAccountEntity) private readonly accounts: Repository<SocialAccountEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly box: SecretBox,
    private readonly platforms: PlatformRegistry,
  ) {}

  /**
   * The account's credentials, refreshed first when the token expires within 5 minutes.
   * Throws PlatformError `auth_expired` for an account that is not active or whose grant the
   * network no longer refreshes (the account is then marked `expired`).
   */
  async forPublishing(accountId: string, read?: PublishingAccountRead): Promise<AccountCredentials> {
    let account =
      read && Date.now() - read.at <= PREFETCH_FRESH_MS ? this.fromJson(read.row) : await this.read(accountId);
    if (!account) throw new PlatformError(`Account ${accountId} does not exist.`, 'auth_expired', false);
    assertActive(account);
    if (dueForPublishing(account)) {
      try {
        account = (await this.refresh(accountId, dueForPublishing, 'wait')).account ?? account;
      } catch (err) {
        // A transient refresh failure does not stop a publish the current token can still make.
        const usable =
          err instanceof PlatformError && err.category !== 'auth_expired' && !expiresWithin(account, 30_000);
        if (!usable) throw err;
        this.logger.warn({ accountId, err: (err as Error).message }, 'Token refresh failed; using the current token');
      }
      assertActive(account);
    }
    return {
      platformAccountId: account.platformAccountId,
      accessToken: openTokens(this.box, account).accessToken,
      metadata: account.metadata,
    };
  }

  /**
   * The account's row as `forPublishing` reads it, as a scalar subquery (jsonb) to embed in a
   * caller's own statement (`accountId`: an SQL expression), so a publish run reads its targets'
   * accounts with its targets instead of one round trip per target.
   */
  publishingRowSql(accountId: string): string {
    return `(SELECT to_jsonb(a) FROM social_accounts a WHERE a.id = ${accountId})`;
  }

  /** Once per target published: a prepared statement, the row mapped by hand. */
  private async read(accountId: string): Promise<SocialAccountEntity | null> {
    const { rows } = await preparedQuery(this.dataSource, `SELECT * FROM social_accounts WHERE id = $1`, [accountId]);
    return rows[0] ? entityFromRow(this.dataSource.manager, SocialAccountEntity, rows[0]) : null;
  }

  /** A publishingRowSql value as the entity (its times as Dates, as `pg` would have parsed them). */
  private fromJson(row: Record<string, unknown> | null): SocialAccountEntity | null {
    return row ? entityFromJson(this.dataSource.manager, SocialAccountEntity, row) : null;
  }

  /** The `refresh-tokens` job: active accounts whose token expires within 24 hours (not refreshed in the last 12). */
  async refreshDue(now = new Date()): Promise<RefreshRun> {
    const isDue = dueInBackground(now);
    const notSince = LessThan(new Date(now.getTime() - BACKGROUND_MIN_INTERVAL_MS));
    const expiring = LessThan(new Date(now.getTime() + BACKGROUND_REFRESH_WINDOW_MS));
    const due = await this.accounts.find({
      select: { id: true },
      where: [
        { status: 'active', tokenExpiresAt: expiring, tokenIssuedAt: IsNull() },
        { status: 'active', tokenExpiresAt: expiring, tokenIssuedAt: notSince },
      ],
      order: { tokenExpiresAt: 'ASC' },
      take: REFRESH_BATCH,
    });
    const run: RefreshRun = { refreshed: 0, expired: 0, failed: 0, skipped: 0 };
    for (const { id } of due) {
      try {
        // Skip rows another process is refreshing right now; it will have done the work.
        if ((await this.refresh(id, isDue, 'skip')).refreshed) run.refreshed += 1;
        else run.skipped += 1;
      } catch (err) {
        if (err instanceof PlatformError && err.category === 'auth_expired') run.expired += 1;
        else {
          run.failed += 1;
          this.logger.warn(
            { accountId: id, err: (err as Error).message },
            'Token refresh failed; retrying on the next run',
          );
        }
      }
    }
    return run;
  }

  /**
   * Refreshes one account under its row lock, if `isDue` still holds once the lock is held.
   * Returns the account as it now stands (refreshed here, or already fresh because another
   * process got there first); `account` is null when `skip` found the row locked.
   */
  private async refresh(accountId: string, isDue: Due, onLocked: LockWait): Promise<RefreshOutcome> {
    const outcome = await this.dataSource.transaction(async (m) => {
      const account = await m.findOne(SocialAccountEntity, {
        where: { id: accountId },
        lock: { mode: 'pessimistic_write', ...(onLocked === 'skip' ? { onLocked: 'skip_locked' as const } : {}) },
      });
      if (!account) return { account: null, refreshed: false };
      if (account.status !== 'active' || !isDue(account)) return { account, refreshed: false };
      const current = openTokens(this.box, account);
      try {
        const fresh = await this.platforms.get(account.platform).refresh(current);
        Object.assign(account, sealTokens(this.box, refreshedTokens(current, account, fresh)));
        return { account: await m.save(account), refreshed: true };
      } catch (err) {
        if (!(err instanceof PlatformError) || err.category !== 'auth_expired') throw err;
        const saved = await this.expire(m, account, 'token_expired', err.message);
        // Thrown after the commit, so the account stays `expired` with its event.
        return { account: saved, refreshed: false, expired: err };
      }
    });
    if (outcome.expired) throw outcome.expired;
    return outcome;
  }

  /**
   * The network refused the account's token on a call (revoked, or expired before its time): the
   * account becomes `expired` with `account.disconnected` (reason `token_revoked`), once.
   */
  async markRevoked(accountId: string, error: string): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      const account = await m.findOne(SocialAccountEntity, {
        where: { id: accountId },
        lock: { mode: 'pessimistic_write' },
      });
      if (account?.status === 'active') await this.expire(m, account, 'token_revoked', error);
    });
  }

  private async expire(
    m: EntityManager,
    account: SocialAccountEntity,
    reason: 'token_expired' | 'token_revoked',
    error: string,
  ): Promise<SocialAccountEntity> {
    account.status = 'expired';
    const saved = await m.save(account);
    await this.outbox.record(m, {
      workspaceId: saved.workspaceId,
      profileId: saved.profileId,
      type: 'account.disconnected',
      actor: SYSTEM_ACTOR,
      data: { account: toAccountDto(saved), reason, error },
    });
    return saved;
  }
}

function assertActive(account: SocialAccountEntity): void {
  if (account.status !== 'active') {
    throw new PlatformError(
      `The ${account.platform} account '${account.name}' is ${account.status}; reconnect it.`,
      'auth_expired',
      false,
    );
  }
}
