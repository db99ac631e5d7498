import type { SecretBox } from '@/common/crypto/secret-box';
import type { OAuthTokens } from '@/modules/networks/kit/adapter';
import type { SocialAccountEntity } from './entities/social-account.entity';

export type TokenColumns = Pick<
  SocialAccountEntity,
  | 'accessTokenEnc'
  | 'refreshTokenEnc'
  | 'tokenKeyId'
  | 'tokenExpiresAt'
  | 'refreshExpiresAt'
  | 'tokenIssuedAt'
  | 'scopes'
>;

export interface PlainTokens {
  accessToken: string;
  refreshToken: string | null;
}

/** Seals a grant's tokens with the current key; both ciphertexts always share `token_key_id`. */
export function sealTokens(box: SecretBox, tokens: OAuthTokens): TokenColumns {
  return {
    accessTokenEnc: box.seal(tokens.accessToken),
    refreshTokenEnc: tokens.refreshToken ? box.seal(tokens.refreshToken) : null,
    tokenKeyId: box.currentKeyId,
    tokenExpiresAt: tokens.expiresAt ?? null,
    refreshExpiresAt: tokens.refreshExpiresAt ?? null,
    tokenIssuedAt: new Date(),
    scopes: tokens.scopes ?? [],
  };
}

export function openTokens(
  box: SecretBox,
  account: Pick<SocialAccountEntity, 'id' | 'accessTokenEnc' | 'refreshTokenEnc'>,
): PlainTokens {
  if (!account.accessTokenEnc) throw new Error(`Account ${account.id} has no stored token`);
  return {
    accessToken: box.open(account.accessTokenEnc),
    refreshToken: account.refreshTokenEnc ? box.open(account.refreshTokenEnc) : null,
  };
}

/**
 * A refresh answer merged over what the account had: networks that do not rotate refresh tokens
 * (or do not restate scopes) leave the previous values in force.
 */
export function refreshedTokens(
  previous: PlainTokens,
  account: Pick<SocialAccountEntity, 'refreshExpiresAt' | 'scopes'>,
  fresh: OAuthTokens,
): OAuthTokens {
  return {
    accessToken: fresh.accessToken,
    refreshToken: fresh.refreshToken ?? previous.refreshToken,
    expiresAt: fresh.expiresAt ?? null,
    refreshExpiresAt: fresh.refreshExpiresAt !== undefined ? fresh.refreshExpiresAt : account.refreshExpiresAt,
    scopes: fresh.scopes ?? account.scopes,
  };
}

export const WIPED_TOKENS: TokenColumns = {
  accessTokenEnc: null,
  refreshTokenEnc: null,
  tokenKeyId: null,
  tokenExpiresAt: null,
  refreshExpiresAt: null,
  tokenIssuedAt: null,
  scopes: [],
};

export function expiresWithin(
  account: Pick<SocialAccountEntity, 'tokenExpiresAt'>,
  windowMs: number,
  now = Date.now(),
): boolean {
  return account.tokenExpiresAt !== null && account.tokenExpiresAt.getTime() - now < windowMs;
}
