import { Injectable } from '@nestjs/common';
import { graphFail, graphMagicErrors } from '../kit/sandbox/graph-sandbox';
import { enforceMagicWords } from '../kit/sandbox/magic-words';
import { SandboxGrant, sandboxNumericId, TokenInfo } from '../kit/sandbox/sandbox-oauth';
import { SandboxStore } from '../kit/sandbox/sandbox-store';

/** Accounts of the simulated Instagram: each grant's new user has one Page with one IG professional account. */
export interface IgAccount {
  id: string;
  pageId: string;
  pageName: string;
  username: string;
  name: string;
  ownerUserId: string;
}

/** Posts per account per rolling 24 h (content_publishing_limit). */
export const INSTAGRAM_DAILY_QUOTA = 50;

const IG_MAGIC = graphMagicErrors();

@Injectable()
export class InstagramSandbox {
  constructor(private readonly store: SandboxStore) {}

  async accountsOf(grant: SandboxGrant): Promise<IgAccount[]> {
    const key = ['instagram', 'user', grant.userId, 'accounts'];
    const existing = await this.store.get<IgAccount[]>(key);
    if (existing) return existing;
    const suffix = grant.userId.slice(-4);
    const account: IgAccount = {
      id: `1784${sandboxNumericId().slice(0, 13)}`,
      pageId: sandboxNumericId(),
      pageName: `Sandbox Studio ${suffix}`,
      username: `sandbox.studio.${suffix}`,
      name: `Sandbox Studio ${suffix}`,
      ownerUserId: grant.userId,
    };
    if (!(await this.store.putNew(key, [account]))) return (await this.store.get<IgAccount[]>(key)) ?? [];
    await this.store.put(['instagram', 'account', account.id], account);
    return [account];
  }

  /** The IG account a user token may act for (its owner only). */
  async authorize(igId: string, token: TokenInfo): Promise<IgAccount> {
    const account = await this.store.get<IgAccount>(['instagram', 'account', igId]);
    if (!account)
      throw graphFail(
        `Unsupported request. Object with ID '${igId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        {
          code: 100,
          subcode: 33,
          type: 'GraphMethodException',
        },
      );
    if (account.ownerUserId !== token.grant.userId)
      throw graphFail('(#10) Application does not have permission for this action', { code: 10, status: 403 });
    return account;
  }

  async account(igId: string): Promise<IgAccount | null> {
    return this.store.get<IgAccount>(['instagram', 'account', igId]);
  }

  /** Applies the magic words to a publish call; throws the network's error when it must fail. */
  magic(igId: string, caption: string, contentKey: string): Promise<void> {
    return enforceMagicWords(
      this.store,
      { platform: 'instagram', accountId: igId, text: caption, contentKey },
      IG_MAGIC,
    );
  }
}
