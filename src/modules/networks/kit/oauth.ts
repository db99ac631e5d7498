import type { AdapterEndpoints, OAuthTokens } from './adapter';
import { PlatformError } from './adapter';
import { callNetwork, NetworkReply, num, obj, str } from './http';

/**
 * Reads an RFC 6749 token response (`access_token`, `expires_in`, `refresh_token`, …), the
 * shape LinkedIn, Google and TikTok v2 all answer with. `previousRefreshToken` is kept when a
 * refresh answer carries no new one (Google, LinkedIn).
 */
export function parseTokenResponse(
  reply: NetworkReply,
  network: string,
  previousRefreshToken: string | null = null,
  now = Date.now(),
): OAuthTokens {
  const body = obj(reply.json);
  const accessToken = str(body.access_token);
  if (!accessToken) throw oauthError(reply, network);
  const expiresIn = num(body.expires_in);
  const refreshExpiresIn = num(body.refresh_token_expires_in ?? body.refresh_expires_in);
  const scope = str(body.scope);
  return {
    accessToken,
    refreshToken: str(body.refresh_token) ?? previousRefreshToken,
    expiresAt: expiresIn > 0 ? new Date(now + expiresIn * 1000) : null,
    refreshExpiresAt: refreshExpiresIn > 0 ? new Date(now + refreshExpiresIn * 1000) : null,
    scopes: scope ? scope.split(/[\s,]+/).filter(Boolean) : [],
  };
}

/**
 * An OAuth error answer (`{ error, error_description }`). A grant the network refuses
 * (invalid_grant, invalid_client, expired or revoked code/refresh token) ends the connection:
 * auth_expired. 5xx and throttling are transient.
 */
export function oauthError(reply: NetworkReply, network: string): PlatformError {
  const body = obj(reply.json);
  const code = str(body.error) ?? `http_${reply.status}`;
  const description =
    str(body.error_description) ?? str(body.message) ?? (reply.text.slice(0, 200) || `HTTP ${reply.status}`);
  const message = `${network} OAuth: ${description}`;
  if (reply.status >= 500)
    return new PlatformError(message, 'network_error', true, { status: reply.status, networkCode: code });
  if (reply.status === 429)
    return new PlatformError(message, 'network_rate_limited', true, { status: reply.status, networkCode: code });
  return new PlatformError(message, 'auth_expired', false, { status: reply.status, networkCode: code });
}

/** A network's consent page (RFC 6749 §4.1.1), with PKCE S256 unless `pkce: false`. */
export interface ConsentPage {
  url: string;
  scopes: string[];
  /** How the network joins scopes (default a space). */
  scopeSeparator?: string;
  /** The client id's query field where a network renamed it (TikTok: client_key). */
  clientIdField?: string;
  pkce?: boolean;
  /** Further fixed parameters (Google: access_type, prompt…). */
  extra?: Record<string, string>;
}

export type ConsentParams = { state: string; redirectUri: string; codeChallenge: string };

/** The one builder of authorize URLs. */
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

/**
 * A network's OAuth 2 app: its consent page (authorizeUrl) and RFC 6749 token endpoint: a form-encoded POST with the app's credentials in the
 * body, answered as parseTokenResponse reads it. `network` names the errors ("LinkedIn OAuth: …");
 * `consent.clientIdField` also names the token request's client id field.
 */
export class OAuth2App {
  constructor(
    private readonly network: string,
    private readonly url: string,
    private readonly endpoints: Pick<AdapterEndpoints, 'clientId' | 'clientSecret' | 'timeoutMs'>,
    private readonly consent: ConsentPage,
  ) {}

  authorizeUrl(p: ConsentParams): string {
    return consentUrl(this.consent, this.endpoints.clientId, p);
  }

  /** The authorization_code grant, with the PKCE verifier. */
  exchangeCode(params: { code: string; redirectUri: string; codeVerifier: string }): Promise<OAuthTokens> {
    return this.request(
      {
        grant_type: 'authorization_code',
        code: params.code,
        redirect_uri: params.redirectUri,
        code_verifier: params.codeVerifier,
      },
      null,
    );
  }

  /** The refresh_token grant; a grant without a refresh token cannot be renewed: auth_expired with `noRefreshMessage`. */
  refresh(refreshToken: string | null, noRefreshMessage: string): Promise<OAuthTokens> {
    if (!refreshToken) return Promise.reject(new PlatformError(noRefreshMessage, 'auth_expired', false));
    return this.request({ grant_type: 'refresh_token', refresh_token: refreshToken }, refreshToken);
  }

  private async request(form: Record<string, string>, previousRefreshToken: string | null): Promise<OAuthTokens> {
    const reply = await callNetwork(
      {
        method: 'POST',
        url: this.url,
        form: {
          ...form,
          [this.consent.clientIdField ?? 'client_id']: this.endpoints.clientId,
          client_secret: this.endpoints.clientSecret,
        },
        timeoutMs: this.endpoints.timeoutMs,
      },
      (r) => oauthError(r, this.network),
    );
    return parseTokenResponse(reply, this.network, previousRefreshToken);
  }
}

/**
 * Consent, code exchange and refresh for an adapter whose network speaks plain OAuth 2 with PKCE
 * (LinkedIn, TikTok, Google): the adapter builds its `OAuth2App` and names what to say when the
 * network granted no refresh token.
 */
export abstract class OAuth2Adapter {
  protected abstract readonly oauth: OAuth2App;
  /** The error message when a refresh is needed but the network granted no refresh token. */
  protected abstract readonly noRefreshToken: string;

  authorizeUrl(params: ConsentParams): string {
    return this.oauth.authorizeUrl(params);
  }

  exchangeCode(params: { code: string; redirectUri: string; codeVerifier: string }): Promise<OAuthTokens> {
    return this.oauth.exchangeCode(params);
  }

  refresh(tokens: { accessToken: string; refreshToken: string | null }): Promise<OAuthTokens> {
    return this.oauth.refresh(tokens.refreshToken, this.noRefreshToken);
  }
}
