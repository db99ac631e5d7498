import type { Type } from '@nestjs/common';
import type { NetworkDefinition } from '../definition';
import { SandboxHttpError } from './sandbox-http';
import { AuthorizeQueryOptions, SandboxGrant, SandboxOAuth, SandboxOAuthError } from './sandbox-oauth';
import { qs, type Q } from './sandbox-request';
import { route, type SandboxRoute, SimulatorRoutes } from './sandbox-routes';

/** A simulated network's login: its authorize route (the kit's consent flow) and token endpoints, in its own format. */
export interface SandboxLogin extends AuthorizeQueryOptions {
  authorize: string;
  /** Its token endpoints: routes on the kit's OAuth, without a caller (`route<SandboxOAuth>(at, null, handler)`). */
  tokens: SandboxRoute<SandboxOAuth>[];
}

/** An RFC 6749 error answer `{ error, error_description }`. */
type OAuthErrorAnswer = [status: number, error: string, description: string];

/** A token endpoint's error answers, in the network's own words. */
export interface TokenGrantErrors {
  /** Missing client credentials, or a code issued to another client. */
  invalidClient: OAuthErrorAnswer;
  /** A grant_type other than authorization_code and refresh_token. */
  unsupportedGrant: OAuthErrorAnswer;
  /** A code, and a refresh token, that is unknown, used, expired or revoked. */
  invalidCode: OAuthErrorAnswer;
  invalidRefresh: OAuthErrorAnswer;
  /** More fields of every error body (TikTok's log_id). */
  extra?: Record<string, string>;
}

/** The tokens a network's grant gets, and what a refresh answers. */
export interface GrantTokens {
  prefix: string;
  accessTtl: number;
  /** null: the refresh token never expires. */
  refreshTtl: number | null;
  /** A refresh answers a new refresh token (`rotate`), the one it was given (`keep`) or none (`omit`). */
  onRefresh: 'rotate' | 'keep' | 'omit';
  scopeJoin: string;
  /** The answer's fields beyond access_token, expires_in, refresh_token and scope. */
  extra?: (grant: SandboxGrant) => Record<string, unknown>;
}

/** An RFC 6749 login: its authorize URL and its token endpoint (POST form) for codes and refresh tokens. */
interface OAuth2Login extends Omit<SandboxLogin, 'tokens'> {
  token: string;
  /** Its error answers (built per request, from the form). */
  errors: (body: Q) => TokenGrantErrors;
  grants: GrantTokens;
}

/** An RFC 6749 login: its token endpoint redeems a code (`authorization_code`) or verifies a refresh token. */
export function oauth2Login({ token, errors, grants, ...login }: OAuth2Login): SandboxLogin {
  const { network, clientIdParam = 'client_id' } = login;
  const answer = async (oauth: SandboxOAuth, grant: SandboxGrant, refreshing: boolean, body: Q) => {
    const { prefix, accessTtl, refreshTtl, onRefresh } = grants;
    const mintRefresh = !refreshing || onRefresh === 'rotate';
    const ttls = { accessTtlSeconds: accessTtl, ...(mintRefresh ? { refreshTtlSeconds: refreshTtl } : {}) };
    const t = await oauth.issueTokens(grant, { ...ttls, prefix });
    const refreshToken = mintRefresh ? t.refreshToken : onRefresh === 'keep' ? qs(body.refresh_token) : null;
    return {
      access_token: t.accessToken,
      expires_in: accessTtl,
      ...(refreshToken !== null ? { refresh_token: refreshToken } : {}),
      scope: grant.scopes.join(grants.scopeJoin),
      ...grants.extra?.(grant),
    };
  };
  const grantAnswer = async (oauth: SandboxOAuth, body: Q): Promise<unknown> => {
    const e = errors(body);
    const fail = ([status, error, description]: OAuthErrorAnswer): SandboxHttpError =>
      new SandboxHttpError(status, { error, error_description: description, ...e.extra });
    const clientId = qs(body[clientIdParam]);
    if (!clientId || !qs(body.client_secret)) throw fail(e.invalidClient);
    const grantType = qs(body.grant_type);
    const refreshing = grantType === 'refresh_token';
    if (!refreshing && grantType !== 'authorization_code') throw fail(e.unsupportedGrant);
    const grant = await (
      refreshing
        ? oauth.verify(network, qs(body.refresh_token), 'refresh').then((info) => info.grant)
        : oauth.redeemCode(network, body, clientIdParam)
    ).catch((err: unknown) => {
      if (!(err instanceof SandboxOAuthError)) throw err;
      throw fail(err.reason === 'invalid_client' ? e.invalidClient : refreshing ? e.invalidRefresh : e.invalidCode);
    });
    return answer(oauth, grant, refreshing, body);
  };
  return {
    ...login,
    tokens: [route<SandboxOAuth>(`POST ${token}`, null, ({ body }, oauth) => grantAnswer(oauth, body))],
  };
}

/** A network's simulator for SandboxModule: its login, its API (a route table on its state) and that state. */
export function simulator<S>(
  login: SandboxLogin,
  state: Type<S>,
  routes: SandboxRoute<S>[],
): NetworkDefinition['simulator'] {
  const authorize = route<SandboxOAuth>({ at: `GET ${login.authorize}`, raw: true }, null, ({ q, res }, oauth) =>
    oauth.authorize(q, login, res),
  );
  const logins = [authorize, ...login.tokens];
  const loginRoutes = SimulatorRoutes(`${login.network}SandboxLogin`, login.network, SandboxOAuth, logins);
  const api = SimulatorRoutes(`${login.network}SandboxApi`, login.network, state, routes);
  return { controllers: [loginRoutes, api], providers: [state] };
}
