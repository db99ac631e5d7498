import { Body, Get, HttpCode, Post, Query, Res, type Type } from '@nestjs/common';
import type { Response } from 'express';
import { SandboxController } from './sandbox-http';
import { AuthorizeQueryOptions, SandboxGrant, SandboxOAuth, TokenGrantErrors } from './sandbox-oauth';
import type { Q } from './sandbox-request';

/**
 * A simulated network's login: its authorize URL (the kit's consent flow, with the network's
 * parameter names) and its token endpoints, each answering in the network's own format.
 */
export interface SandboxLogin extends AuthorizeQueryOptions {
  /** The authorize route, under /sandbox/<network>. */
  authorize: string;
  /** GET endpoints read the query, POST ones the form; POST answers 200 unless `status` says otherwise. */
  tokens: { method: 'GET' | 'POST'; path: string; status?: number; answer: (oauth: SandboxOAuth, p: Q) => unknown }[];
}

/** An RFC 6749 token endpoint (POST form): the grant of a code or a refresh token, answered by `answer`. */
export function grantRoute(
  network: string,
  path: string,
  errors: (body: Q) => TokenGrantErrors,
  answer: (oauth: SandboxOAuth, grant: SandboxGrant, refreshing: boolean, body: Q) => Promise<unknown>,
): SandboxLogin['tokens'][number] {
  return {
    method: 'POST',
    path,
    answer: async (oauth, body) => {
      const { grant, refreshing } = await oauth.tokenGrant(network, body, errors(body));
      return answer(oauth, grant, refreshing, body);
    },
  };
}

/** The controller serving a network's login routes. */
export function LoginRoutes(login: SandboxLogin): Type {
  @SandboxController(login.network)
  class Login {
    constructor(readonly oauth: SandboxOAuth) {}

    @Get(login.authorize)
    authorize(@Query() q: Q, @Res() res: Response): Promise<void> {
      return this.oauth.authorizeQuery(q, login, res);
    }
  }
  // One handler per token endpoint, decorated as `@Get(path) token0(@Query() q)` would be.
  login.tokens.forEach((t, i) => {
    const name = `token${i}`;
    const descriptor = {
      value: function (this: Login, p: Q): unknown {
        return t.answer(this.oauth, p);
      },
      writable: true,
      configurable: true,
    };
    Object.defineProperty(Login.prototype, name, descriptor);
    (t.method === 'GET' ? Query() : Body())(Login.prototype, name, 0);
    (t.method === 'GET' ? Get : Post)(t.path)(Login.prototype, name, descriptor);
    HttpCode(t.status ?? 200)(Login.prototype, name, descriptor);
  });
  Object.defineProperty(Login, 'name', { value: `${login.network}SandboxLogin` });
  return Login;
}
