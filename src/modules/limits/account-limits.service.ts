import { Injectable, Logger } from '@nestjs/common';
import { AuthContext } from '@/common/auth/auth-context';
import { AccountCredentialsService } from '@/modules/accounts/account-credentials.service';
import { AccountsService } from '@/modules/accounts/accounts.service';
import type { NetworkCapUsage } from '@/modules/networks/kit/caps';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { PlatformName } from '@/modules/networks/platform-name';
import { CapUsage, PublishingCapsService } from '@/modules/posts/limits/publishing-caps.service';
import type { AccountLimitDto, AccountLimitsDto } from './dto/account-limits.dto';

/**
 * GET /v1/accounts/{id}/limits: each cap of the account's network, counted from our publish
 * records, with the first one read from the network where it offers the figure (a failed read
 * falls back to the records: the answer never depends on the network being up).
 */
@Injectable()
export class AccountLimitsService {
  private readonly logger = new Logger('AccountLimits');

  constructor(
    private readonly accounts: AccountsService,
    private readonly credentials: AccountCredentialsService,
    private readonly caps: PublishingCapsService,
    private readonly platforms: PlatformRegistry,
  ) {}

  async get(auth: AuthContext, id: string): Promise<AccountLimitsDto> {
    const { account } = await this.accounts.get(auth, id);
    const usage = await this.caps.usage(account);
    const network = usage.length > 0 && account.status === 'active' ? await this.fromNetwork(account) : null;
    return {
      accountId: account.id,
      platform: account.platform,
      limits: usage.map((u, i) => toDto(u, i === 0 ? network : null)),
    };
  }

  private async fromNetwork(account: { id: string; platform: PlatformName }): Promise<NetworkCapUsage | null> {
    const adapter = this.platforms.get(account.platform);
    if (!adapter.publishingUsage) return null;
    try {
      return await adapter.publishingUsage(await this.credentials.forPublishing(account.id));
    } catch (err) {
      this.logger.warn({ accountId: account.id, err: (err as Error).message }, 'Publishing limit read failed');
      return null;
    }
  }
}

function toDto(u: CapUsage, network: NetworkCapUsage | null): AccountLimitDto {
  const limit = network?.limit ?? u.limit;
  const used = network?.used ?? (network?.exhausted ? Math.max(u.used, limit) : u.used);
  return {
    name: u.name,
    window: u.window,
    limit,
    used,
    resetsAt: u.resetsAt?.toISOString() ?? null,
    scope: u.scope,
    source: network ? 'network' : 'records',
  };
}
