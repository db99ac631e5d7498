import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { FindOptionsWhere, MoreThan, Repository } from 'typeorm';
import type { AccountCredentials, PlatformAdapter } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import { AccountCredentialsService } from './account-credentials.service';
import { SocialAccountEntity } from './entities/social-account.entity';

const ACCOUNT_BATCH = 100;
const BEFORE_FIRST_ID = '00000000-0000-0000-0000-000000000000';

/** Which active accounts a job visits: extra column conditions, and the networks it can work with. */
export interface AccountFilter {
  where?: FindOptionsWhere<SocialAccountEntity>;
  accepts?: (adapter: PlatformAdapter) => boolean;
}

/** An active account ready for network calls. */
export interface OpenedAccount {
  account: SocialAccountEntity;
  adapter: PlatformAdapter;
  creds: AccountCredentials;
}

export interface SweepRun {
  /** Accounts whose work completed. */
  accounts: number;
  failed: number;
}

/**
 * For the periodic jobs that visit every active account (analytics snapshots, comment sync):
 * the accounts in id order, a batch at a time, and each opened with its adapter and credentials
 * (refreshed when due).
 */
@Injectable()
export class AccountSweepService {
  constructor(
    @InjectRepository(SocialAccountEntity) private readonly accounts: Repository<SocialAccountEntity>,
    private readonly credentials: AccountCredentialsService,
    private readonly platforms: PlatformRegistry,
  ) {}

  /**
   * Runs `work` on every active account the filter keeps. One account's failure (revoked
   * token, network down) must not stop the others: it is counted and logged as `failure`, and
   * the next run retries it.
   */
  async forEach(
    filter: AccountFilter,
    log: { logger: Logger; failure: string },
    work: (accountId: string) => Promise<void>,
  ): Promise<SweepRun> {
    const run: SweepRun = { accounts: 0, failed: 0 };
    for (let after = BEFORE_FIRST_ID; ;) {
      const batch = await this.accounts.find({
        select: { id: true, platform: true },
        where: { ...filter.where, status: 'active', id: MoreThan(after) },
        order: { id: 'ASC' },
        take: ACCOUNT_BATCH,
      });
      const accepts = filter.accepts;
      for (const account of accepts ? batch.filter((a) => accepts(this.platforms.get(a.platform))) : batch) {
        try {
          await work(account.id);
          run.accounts += 1;
        } catch (err) {
          run.failed += 1;
          log.logger.warn({ accountId: account.id, err: (err as Error).message }, log.failure);
        }
      }
      if (batch.length < ACCOUNT_BATCH) return run;
      after = batch[batch.length - 1].id;
    }
  }

  /** The account if it is active and the filter keeps it, with its adapter and credentials; null otherwise. */
  async open(accountId: string, filter: AccountFilter = {}): Promise<OpenedAccount | null> {
    const account = await this.accounts.findOne({ where: { ...filter.where, id: accountId, status: 'active' } });
    if (!account) return null;
    const adapter = this.platforms.get(account.platform);
    if (filter.accepts && !filter.accepts(adapter)) return null;
    return { account, adapter, creds: await this.credentials.forPublishing(account.id) };
  }
}
