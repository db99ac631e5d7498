import type { Request } from 'express';
import { OAuthFailure, SandboxOAuth, SandboxOAuthError, TokenInfo } from './sandbox-oauth';
import type { SandboxStore } from './sandbox-store';

/** How a simulated network authenticates a call, declared once per network; a route naming it gets the caller. */
export interface SandboxAuthSpec<T = TokenInfo> {
  network: string;
  /** Graph also takes `access_token` from the form or the query (before the Authorization header). */
  accessTokenParam?: boolean;
  /** Runs before the token is looked at (LinkedIn's version headers). */
  check?: (req: Request) => void;
  /** The network's error for a missing token or one that does not verify (`message`: the kit's words). */
  fail: (reason: OAuthFailure | 'missing_token', message: string) => Error;
  /** What the handler receives (default: the TokenInfo); it may look the caller up (route params in `req`). */
  caller?: (info: TokenInfo, ctx: { token: string; req: Request; store: SandboxStore }) => T | Promise<T>;
}

export async function authenticate(spec: SandboxAuthSpec<unknown>, req: Request, oauth: SandboxOAuth) {
  spec.check?.(req);
  const { authorization } = req.headers;
  // An empty parameter is no token: the header still counts.
  const param = spec.accessTokenParam
    ? (req.body as { access_token?: string } | undefined)?.access_token || (req.query.access_token as string)
    : undefined;
  const token = param || (authorization?.startsWith('Bearer ') ? authorization.slice(7).trim() : undefined);
  if (!token) throw spec.fail('missing_token', 'No access token.');
  const info = await oauth.verify(spec.network, token).catch((err: unknown) => {
    throw err instanceof SandboxOAuthError ? spec.fail(err.reason, err.message) : err;
  });
  return spec.caller ? spec.caller(info, { token, req, store: oauth.store }) : info;
}
