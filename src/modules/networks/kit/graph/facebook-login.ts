import type { AdapterEndpoints, OAuthTokens } from '../adapter';
import type { NetworkUrls } from '../definition';
import type { NetworkLogin } from '../network-adapter';
import { consentUrl, ConsentParams } from '../oauth';
import { GraphClient } from './graph-client';
import { appCredentials, graphTokens, GraphTokenResponse } from './graph-shapes';

/** Where the Graph API and Facebook Login's dialog live, for a Graph version. */
export function facebookLoginUrls(version: string): NetworkUrls {
  return {
    apiBaseUrl: `https://graph.facebook.com/${version}`,
    authBaseUrl: `https://www.facebook.com/${version}/dialog/oauth`,
  };
}

/** A Graph network's login: its consent page (scopes joined by ','; PKCE unless `pkce` is false) and token calls. */
export abstract class GraphLogin implements NetworkLogin {
  constructor(
    protected readonly graph: GraphClient,
    protected readonly endpoints: Pick<AdapterEndpoints, 'authBaseUrl' | 'clientId' | 'clientSecret'>,
    protected readonly scopes: string[],
    private readonly pkce = true,
  ) {}

  authorizeUrl(p: ConsentParams): string {
    const page = { url: this.endpoints.authBaseUrl, scopes: this.scopes, scopeSeparator: ',', pkce: this.pkce };
    return consentUrl(page, this.endpoints.clientId, p);
  }

  abstract exchangeCode(params: Parameters<NetworkLogin['exchangeCode']>[0]): Promise<OAuthTokens>;
  abstract refresh(tokens: OAuthTokens): Promise<OAuthTokens>;
}

/**
 * Facebook Login, which the Facebook Pages and Instagram (with Facebook Login) adapters share:
 * the OAuth dialog with PKCE, code → short-lived user token → long-lived (~60 d) user token.
 * There are no refresh tokens: a still-valid long-lived token is exchanged for a fresh one.
 */
export class FacebookLogin extends GraphLogin {
  async exchangeCode(p: { code: string; redirectUri: string; codeVerifier: string }): Promise<OAuthTokens> {
    const grant = { redirect_uri: p.redirectUri, code: p.code, code_verifier: p.codeVerifier };
    const query = { ...appCredentials(this.endpoints), ...grant };
    const short = await this.graph.get<GraphTokenResponse>('/oauth/access_token', query);
    return this.refresh({ accessToken: short.access_token });
  }

  /** A long-lived user token for a still-valid (short- or long-lived) one. */
  refresh({ accessToken }: { accessToken: string }): Promise<OAuthTokens> {
    const query = {
      grant_type: 'fb_exchange_token',
      ...appCredentials(this.endpoints),
      fb_exchange_token: accessToken,
    };
    return graphTokens(this.graph.get<GraphTokenResponse>('/oauth/access_token', query), this.scopes);
  }
}
