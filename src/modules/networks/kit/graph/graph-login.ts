import type { AdapterEndpoints, OAuthTokens } from '../adapter';
import type { NetworkLogin } from '../network-adapter';
import { consentUrl, ConsentParams, tokenExpiry } from '../oauth';
import type { GraphClient, GraphParams } from './graph-client';

export interface GraphTokenResponse {
  access_token: string;
  expires_in?: number;
}

/** A Graph token endpoint's answer as our tokens: Graph grants no refresh tokens. */
export async function graphTokens(answer: Promise<GraphTokenResponse>, scopes: string[]): Promise<OAuthTokens> {
  const now = Date.now();
  const res = await answer;
  return { accessToken: res.access_token, refreshToken: null, expiresAt: tokenExpiry(res.expires_in, now), scopes };
}

/** A Graph network's login (Facebook Login, Threads' own): scopes joined by ','; PKCE unless `pkce` is false. */
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

  protected get app(): Record<string, string> {
    return { client_id: this.endpoints.clientId, client_secret: this.endpoints.clientSecret };
  }

  protected tokens(path: string, query: GraphParams): Promise<OAuthTokens> {
    return graphTokens(this.graph.get<GraphTokenResponse>(path, query), this.scopes);
  }
}
