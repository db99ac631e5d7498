import { createHash, randomBytes } from 'node:crypto';
import type { GrantedAccount, OAuthTokens, PlatformAdapter } from '@/modules/networks/kit/adapter';

/** Where the sandbox sends the browser back; never contacted (redirects are not followed). */
export const SANDBOX_REDIRECT_URI = 'http://127.0.0.1:9/oauth/callback';

export interface SandboxConnection {
  tokens: OAuthTokens;
  accounts: GrantedAccount[];
}

/** Runs an adapter's consent flow against the sandbox over HTTP (auto consent) and lists the accounts. */
export async function connectSandbox(adapter: PlatformAdapter): Promise<SandboxConnection> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  const url = adapter.authorizeUrl({
    state,
    redirectUri: SANDBOX_REDIRECT_URI,
    codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
  });
  const res = await fetch(url, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`authorize answered ${res.status}: ${await res.text()}`);
  const back = new URL(res.headers.get('location') ?? '');
  if (back.searchParams.get('state') !== state) throw new Error('state was not echoed');
  const tokens = await adapter.exchangeCode({
    code: back.searchParams.get('code') ?? '',
    redirectUri: SANDBOX_REDIRECT_URI,
    codeVerifier: verifier,
  });
  return { tokens, accounts: await adapter.listAccounts(tokens) };
}

/** A saveState that keeps the latest state in memory (what the publishing engine persists). */
export function stateRecorder(): {
  state: Record<string, unknown>;
  saveState: (s: Record<string, unknown>) => Promise<void>;
} {
  const rec = {
    state: {} as Record<string, unknown>,
    saveState: async (s: Record<string, unknown>) => void (rec.state = s),
  };
  return rec;
}
