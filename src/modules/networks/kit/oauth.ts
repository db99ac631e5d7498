import type { AdapterEndpoints, OAuthTokens } from './adapter';
import { PlatformError } from './adapter';
import { answerError, callNetwork, NetworkReply, num, obj, str } from './http';
import type { NetworkLogin } from './network-adapter';

/** When a token given at `now` expires (`expires_in` seconds); null when that is not a positive number of seconds, or too large to be a date. */
export function tokenExpiry(expiresIn: unknown, now: number): Date | null {
  const seconds = num(expiresIn);
  const at = new Date(now + seconds * 1000);
  return seconds > 0 && Number.isFinite(at.getTime()) ? at : null;
}

/** An OAuth error answer (`{ error, error_description }`): auth_expired, but 5xx and throttling are transient. */
function oauthError(reply: NetworkReply, network: string): PlatformError {
  const body = obj(reply.json);
  const description =
    str(body.error_description) ?? str(body.message) ?? (reply.text.slice(0, 200) || `HTTP ${reply.status}`);
  const answer = { status: reply.status, networkCode: str(body.error) ?? `http_${reply.status}` };
  return answerError(`${network} OAuth: ${description}`, { ...answer, otherwise: 'auth_expired' });
}

/** A network's consent page (RFC 6749 §4.1.1), with PKCE S256 unless `pkce: false`. */
interface ConsentPage {
  url: string;
  scopes: string[];
  scopeSeparator?: string;
  /** The client id's query field where a network renamed it (TikTok: client_key). */
  clientIdField?: string;
  pkce?: boolean;
  /** Further fixed parameters (Google: access_type, prompt…). */
  extra?: Record<string, string>;
}

export type ConsentParams = Parameters<NetworkLogin['authorizeUrl']>[0];

export function consentUrl(page: ConsentPage, clientId: string, p: ConsentParams): string {
  const u = new URL(page.url);
  u.search = new URLSearchParams({
    [page.clientIdField ?? 'client_id']: clientId,
    redirect_uri: p.redirectUri,
    response_type: 'code',
    scope: page.scopes.join(page.scopeSeparator ?? ' '),
    state: p.state,
    ...page.extra,
    ...(page.pkce === false ? {} : { code_challenge: p.codeChallenge, code_challenge_method: 'S256' }),
  }).toString();
  return u.toString();
}

/** A plain OAuth 2 network's login (LinkedIn, TikTok, Google): the app's credentials go in the token POST's form. */
export class OAuth2App implements NetworkLogin {
  constructor(
    private readonly endpoints: Pick<AdapterEndpoints, 'clientId' | 'clientSecret' | 'timeoutMs'>,
    private readonly app: ConsentPage & { network: string; tokenUrl: string; noRefreshToken?: string },
  ) {}

  authorizeUrl(p: ConsentParams): string {
    return consentUrl(this.app, this.endpoints.clientId, p);
  }

  exchangeCode(p: Parameters<NetworkLogin['exchangeCode']>[0]): Promise<OAuthTokens> {
    const form = { grant_type: 'authorization_code', code: p.code, redirect_uri: p.redirectUri };
    return this.request({ ...form, code_verifier: p.codeVerifier }, null);
  }

  refresh({ refreshToken }: { refreshToken: string | null }): Promise<OAuthTokens> {
    const { network, noRefreshToken = `${network} granted no refresh token; reconnect the account.` } = this.app;
    if (!refreshToken) return Promise.reject(new PlatformError(noRefreshToken, 'auth_expired', false));
    return this.request({ grant_type: 'refresh_token', refresh_token: refreshToken }, refreshToken);
  }

  private async request(form: Record<string, string>, previousRefreshToken: string | null): Promise<OAuthTokens> {
    const { clientId, clientSecret, timeoutMs } = this.endpoints;
    const credentials = { [this.app.clientIdField ?? 'client_id']: clientId, client_secret: clientSecret };
    const failed = (r: NetworkReply) => oauthError(r, this.app.network);
    const post = { method: 'POST' as const, url: this.app.tokenUrl, form: { ...form, ...credentials }, timeoutMs };
    const reply = await callNetwork(post, failed);
    // An RFC 6749 token response; a refresh answered without a new refresh token keeps the old one.
    const body = obj(reply.json);
    const accessToken = str(body.access_token);
    if (!accessToken) throw failed(reply);
    const now = Date.now();
    return {
      accessToken,
      refreshToken: str(body.refresh_token) ?? previousRefreshToken,
      expiresAt: tokenExpiry(body.expires_in, now),
      refreshExpiresAt: tokenExpiry(body.refresh_token_expires_in ?? body.refresh_expires_in, now),
      scopes: (str(body.scope) ?? '').split(/[\s,]+/).filter(Boolean),
    };
  }
}
