import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SecretBox } from '@/common/crypto/secret-box';
import type { Actor } from '@/common/outbox/event.entity';
import { OutboxService } from '@/common/outbox/outbox.service';
import type { GrantedAccount, OAuthTokens } from '@/modules/networks/kit/adapter';
import type { PlatformName } from '@/modules/networks/platform-name';
import { sealTokens } from './account-tokens';
import { toAccountDto } from './accounts.service';
import type { AccountDto } from './dto/account.dto';
import { SocialAccountEntity } from './entities/social-account.entity';

export interface ConnectionTarget {
  workspaceId: string;
  profileId: string;
  platform: PlatformName;
}

/**
 * Saves the accounts of an OAuth grant. An account the profile already has (same network id)
 * is updated in place — same id, new tokens, active again — so posts keep pointing at it.
 */
@Injectable()
export class AccountConnectionsService {
  constructor(
    private readonly box: SecretBox,
    private readonly outbox: OutboxService,
  ) {}

  /** Call inside the transaction that completes the connection; writes `account.connected` per account. */
  async saveGrant(
    m: EntityManager,
    target: ConnectionTarget,
    granted: GrantedAccount[],
    grantTokens: OAuthTokens,
    actor: Actor,
    context: Record<string, unknown>,
  ): Promise<AccountDto[]> {
    const saved: AccountDto[] = [];
    for (const g of granted) {
      const t = sealTokens(this.box, g.tokens ?? grantTokens);
      // ON CONFLICT on the (profile, platform, network id) unique index: concurrent connects of one account cannot duplicate it.
      const [row] = await m.query<{ id: string; inserted: boolean }[]>(
        `INSERT INTO social_accounts (workspace_id, profile_id, platform, platform_account_id, name, username, avatar_url, status,
           access_token_enc, refresh_token_enc, token_key_id, token_expires_at, refresh_expires_at, token_issued_at, scopes, metadata, connected_at, disconnected_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'active', $8, $9, $10, $11, $12, $13, $14, $15, now(), NULL)
         ON CONFLICT (profile_id, platform, platform_account_id) DO UPDATE SET
           name = EXCLUDED.name, username = EXCLUDED.username, avatar_url = EXCLUDED.avatar_url, status = 'active',
           access_token_enc = EXCLUDED.access_token_enc, refresh_token_enc = EXCLUDED.refresh_token_enc, token_key_id = EXCLUDED.token_key_id,
           token_expires_at = EXCLUDED.token_expires_at, refresh_expires_at = EXCLUDED.refresh_expires_at, token_issued_at = EXCLUDED.token_issued_at, scopes = EXCLUDED.scopes,
           metadata = EXCLUDED.metadata, connected_at = now(), disconnected_at = NULL, updated_at = now()
         RETURNING id, (xmax = 0) AS inserted`,
        [
          target.workspaceId,
          target.profileId,
          target.platform,
          g.platformAccountId,
          g.name,
          g.username ?? null,
          g.avatarUrl ?? null,
          t.accessTokenEnc,
          t.refreshTokenEnc,
          t.tokenKeyId,
          t.tokenExpiresAt,
          t.refreshExpiresAt,
          t.tokenIssuedAt,
          t.scopes,
          JSON.stringify(g.metadata ?? {}),
        ],
      );
      const account = toAccountDto(await m.findOneByOrFail(SocialAccountEntity, { id: row.id }));
      await this.outbox.record(m, {
        workspaceId: target.workspaceId,
        profileId: target.profileId,
        type: 'account.connected',
        actor,
        data: { account, reconnected: !row.inserted, ...context },
      });
      saved.push(account);
    }
    return saved;
  }
}
