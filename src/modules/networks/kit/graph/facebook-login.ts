import type { OAuthTokens } from '../adapter';
import type { NetworkUrls } from '../definition';
import { GraphLogin, GraphTokenResponse } from './graph-login';

export function facebookLoginUrls(version: string): NetworkUrls {
  return {
    apiBaseUrl: `https://graph.facebook.com/${version}`,
    authBaseUrl: `https://www.facebook.com/${version}/dialog/oauth`,
  };
}

/**
 * Facebook Login (Facebook Pages, Instagram): code → short-lived → long-lived (~60 d) user token. There are no
 * refresh tokens: a still-valid long-lived token is exchanged for a fresh one.
 */
export class FacebookLogin extends GraphLogin {
  async exchangeCode(p: { code: string; redirectUri: string; codeVerifier: string }): Promise<OAuthTokens> {
    const grant = { redirect_uri: p.redirectUri, code: p.code, code_verifier: p.codeVerifier };
    const short = await this.graph.get<GraphTokenResponse>('/oauth/access_token', { ...this.app, ...grant });
    return this.refresh({ accessToken: short.access_token });
  }

  refresh({ accessToken }: { accessToken: string }): Promise<OAuthTokens> {
    const query = { grant_type: 'fb_exchange_token', ...this.app, fb_exchange_token: accessToken };
    return this.tokens('/oauth/access_token', query);
  }
}
