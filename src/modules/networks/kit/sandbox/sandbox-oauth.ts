import { Injectable } from '@nestjs/common';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Response } from 'express';
import { esc, layout, messageHtml } from '@/common/hosted-pages/hosted-page';
import { AppConfig } from '@/config/config';
import { SandboxHttpError } from './sandbox-http';
import { qs } from './sandbox-request';
import { SandboxStore } from './sandbox-store';

/**
 * The consent flow and token book-keeping every simulated network shares. A network's
 * controller maps its own parameter names to these calls and renders errors its own way.
 *
 *   authorize → (auto consent: 302 | consent page → POST /sandbox/_control/consent → 302)
 *   → redirect_uri?code=…&state=…  → redeemCode() → issueTokens() → verify()/refresh()
 *
 * authorizeQuery() and tokenGrant() read the query and form fields of RFC 6749's authorize and
 * token endpoints for the networks that use them as specified (LinkedIn, TikTok, Google).
 *
 * Every grant is a brand-new sandbox user (fresh random id), so each connect adds an account.
 * Tests can break a grant with POST /sandbox/_control/revoke { accessToken | refreshToken }
 * (refresh and every token of the grant then fail) or make an access token expire now with
 * POST /sandbox/_control/expire { accessToken }.
 */

export interface AuthorizeRequest {
  network: string;
  clientId: string;
  redirectUri: string;
  state: string;
  scopes: string[];
  codeChallenge?: string | null;
  codeChallengeMethod?: string | null;
  /** Shown on the consent page. */
  appLabel?: string;
}

export interface SandboxGrant {
  id: string;
  network: string;
  clientId: string;
  /** The sandbox user this grant belongs to (new for every grant). */
  userId: string;
  scopes: string[];
  createdAt: string;
  revoked: boolean;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string | null;
  /** Seconds; null = does not expire. */
  expiresIn: number | null;
  refreshExpiresIn: number | null;
}

export interface TokenInfo {
  grant: SandboxGrant;
  kind: 'access' | 'refresh';
  /** What the token acts for when it is narrower than the grant (a Facebook Page token: the page id). */
  subject: string | null;
  expiresAt: string | null;
}

export type OAuthFailure =
  'invalid_request' | 'invalid_client' | 'invalid_grant' | 'invalid_token' | 'expired_token' | 'revoked_token';

/** How a network names the fields of its authorize URL (defaults: RFC 6749 with PKCE). */
export interface AuthorizeQueryOptions {
  network: string;
  appLabel: string;
  /** The query field of the client id (TikTok: client_key). */
  clientIdParam?: string;
  /** Between scopes (Google: white space only). */
  scopeSeparator?: RegExp;
  /** false: the network's flow has no PKCE (Threads), code_challenge is ignored. */
  pkce?: boolean;
}

/** A token endpoint's answers, in the network's own error format. */
export interface TokenGrantErrors {
  /** The form field of the client id (TikTok: client_key). */
  clientIdParam?: string;
  /** Missing client credentials, or a code issued to another client. */
  invalidClient: () => Error;
  /** A grant_type other than authorization_code and refresh_token. */
  unsupportedGrant: () => Error;
  /** A code or refresh token that is unknown, used, expired or revoked. */
  invalidGrant: (refreshing: boolean) => Error;
}

/** An RFC 6749 error answer: `{ error, error_description, ...extra }`. */
export function oauthError(
  status: number,
  error: string,
  description: string,
  extra: Record<string, string> = {},
): SandboxHttpError {
  return new SandboxHttpError(status, { error, error_description: description, ...extra });
}

export class SandboxOAuthError extends Error {
  constructor(
    readonly reason: OAuthFailure,
    message: string,
  ) {
    super(message);
  }
}

interface PendingConsent extends AuthorizeRequest {
  id: string;
}

interface CodeRecord extends AuthorizeRequest {
  userId: string;
}

interface TokenRecord {
  grantId: string;
  kind: 'access' | 'refresh';
  subject: string | null;
  expiresAt: string | null;
}

const CODE_TTL_SECONDS = 600;
const CONSENT_PATH = '/sandbox/_control/consent';

/** A fresh numeric id, like Meta's (15–16 digits). */
export function sandboxNumericId(): string {
  return `${randomInt(1, 10)}${randomInt(0, 1e9).toString().padStart(9, '0')}${randomInt(0, 1e6).toString().padStart(6, '0')}`;
}

@Injectable()
export class SandboxOAuth {
  constructor(
    /** Where the grants live; a token endpoint may keep its network's per-user state there too. */
    readonly store: SandboxStore,
    private readonly config: AppConfig,
  ) {}

  /** Handles a network's authorize URL: 302 with a code, or the consent page. */
  async authorize(req: AuthorizeRequest, res: Response): Promise<void> {
    if (!req.clientId || !req.redirectUri || !/^https?:\/\//.test(req.redirectUri)) {
      res
        .status(400)
        .type('html')
        .send(messageHtml('Invalid request', 'client_id and an absolute redirect_uri are required.'));
      return;
    }
    if (this.config.sandbox.autoConsent) {
      res.redirect(302, await this.approve(req));
      return;
    }
    const pending: PendingConsent = { ...req, id: randomBytes(16).toString('hex') };
    await this.store.put(['oauth', 'consent', pending.id], pending, CODE_TTL_SECONDS);
    res.status(200).type('html').send(consentPage(pending));
  }

  /** authorize() for an authorize URL's query (client id, redirect_uri, state, scope, PKCE challenge). */
  authorizeQuery(q: Record<string, unknown>, o: AuthorizeQueryOptions, res: Response): Promise<void> {
    return this.authorize(
      {
        network: o.network,
        clientId: qs(q[o.clientIdParam ?? 'client_id']),
        redirectUri: qs(q.redirect_uri),
        state: qs(q.state),
        scopes: qs(q.scope)
          .split(o.scopeSeparator ?? /[ ,]+/)
          .filter(Boolean),
        ...(o.pkce === false
          ? {}
          : { codeChallenge: qs(q.code_challenge) || null, codeChallengeMethod: qs(q.code_challenge_method) || null }),
        appLabel: o.appLabel,
      },
      res,
    );
  }

  /**
   * The grant a token request (form body) is for: `authorization_code` redeems the code (client,
   * redirect URI and PKCE verifier checked), `refresh_token` verifies the refresh token. Every
   * failure is thrown as `errors` builds it.
   */
  async tokenGrant(
    network: string,
    body: Record<string, unknown>,
    errors: TokenGrantErrors,
  ): Promise<{ grant: SandboxGrant; refreshing: boolean }> {
    const clientId = qs(body[errors.clientIdParam ?? 'client_id']);
    if (!clientId || !qs(body.client_secret)) throw errors.invalidClient();
    const grantType = qs(body.grant_type);
    const refreshing = grantType === 'refresh_token';
    if (!refreshing && grantType !== 'authorization_code') throw errors.unsupportedGrant();
    try {
      const grant = refreshing
        ? (await this.verify(network, qs(body.refresh_token), 'refresh')).grant
        : await this.redeemCode(network, {
            code: qs(body.code),
            clientId,
            redirectUri: qs(body.redirect_uri),
            codeVerifier: qs(body.code_verifier) || null,
          });
      return { grant, refreshing };
    } catch (err) {
      if (!(err instanceof SandboxOAuthError)) throw err;
      throw err.reason === 'invalid_client' ? errors.invalidClient() : errors.invalidGrant(refreshing);
    }
  }

  /** POST target of the consent page (form fields: consent, decision=allow|deny). */
  async consent(form: { consent?: string; decision?: string }, res: Response): Promise<void> {
    const pending = form.consent ? await this.store.take<PendingConsent>(['oauth', 'consent', form.consent]) : null;
    if (!pending) {
      const message = 'This consent request is unknown or was already answered. Start the connection again.';
      res.status(400).type('html').send(messageHtml('Request expired', message));
      return;
    }
    const denied = { error: 'access_denied', error_description: 'The user denied the request.', state: pending.state };
    res.redirect(302, form.decision === 'allow' ? await this.approve(pending) : withQuery(pending.redirectUri, denied));
  }

  /** Exchanges a single-use code; checks client, redirect URI and PKCE. Returns a new grant. */
  async redeemCode(
    network: string,
    p: { code: string; clientId: string; redirectUri: string; codeVerifier?: string | null },
  ): Promise<SandboxGrant> {
    const rec = p.code ? await this.store.take<CodeRecord>(['oauth', 'code', network, p.code]) : null;
    if (!rec)
      throw new SandboxOAuthError('invalid_grant', 'This authorization code has expired or has already been used.');
    if (rec.clientId !== p.clientId)
      throw new SandboxOAuthError('invalid_client', 'The client id does not match the one the code was issued to.');
    if (rec.redirectUri !== p.redirectUri)
      throw new SandboxOAuthError(
        'invalid_grant',
        'redirect_uri is not identical to the one used in the authorization request.',
      );
    if (
      rec.codeChallenge &&
      !pkceMatches(rec.codeChallenge, rec.codeChallengeMethod ?? 'plain', p.codeVerifier ?? '')
    ) {
      throw new SandboxOAuthError('invalid_grant', 'The code_verifier does not match the code_challenge.');
    }
    const grant: SandboxGrant = {
      id: randomBytes(12).toString('hex'),
      network,
      clientId: rec.clientId,
      userId: rec.userId,
      scopes: rec.scopes,
      createdAt: new Date().toISOString(),
      revoked: false,
    };
    await this.store.put(['oauth', 'grant', grant.id], grant);
    return grant;
  }

  /** Issues an access token (and a refresh token when refreshTtlSeconds is given) for a grant. */
  async issueTokens(
    grant: SandboxGrant,
    o: { accessTtlSeconds: number | null; refreshTtlSeconds?: number | null; subject?: string | null; prefix?: string },
  ): Promise<IssuedTokens> {
    const prefix = o.prefix ?? `sbx${grant.network.slice(0, 2)}`;
    const mint = async (kind: TokenRecord['kind'], start: string, ttl: number | null): Promise<string> => {
      const token = start + randomBytes(24).toString('base64url');
      const rec: TokenRecord = { grantId: grant.id, kind, subject: o.subject ?? null, expiresAt: expiry(ttl) };
      await this.store.put(['oauth', 'token', token], rec);
      return token;
    };
    const accessToken = await mint('access', prefix, o.accessTtlSeconds);
    const refreshToken =
      o.refreshTtlSeconds === undefined ? null : await mint('refresh', `${prefix}r`, o.refreshTtlSeconds);
    return { accessToken, refreshToken, expiresIn: o.accessTtlSeconds, refreshExpiresIn: o.refreshTtlSeconds ?? null };
  }

  /** Resolves a token of this network; throws SandboxOAuthError when unknown, expired or revoked. */
  async verify(
    network: string,
    token: string | undefined | null,
    kind: 'access' | 'refresh' = 'access',
  ): Promise<TokenInfo> {
    const rec = token ? await this.store.get<TokenRecord>(['oauth', 'token', token]) : null;
    const grant = rec ? await this.store.get<SandboxGrant>(['oauth', 'grant', rec.grantId]) : null;
    if (!rec || !grant || grant.network !== network || rec.kind !== kind)
      throw new SandboxOAuthError('invalid_token', 'Invalid OAuth access token - Cannot parse access token');
    if (grant.revoked)
      throw new SandboxOAuthError(
        'revoked_token',
        'The user has revoked this authorization or the session was invalidated.',
      );
    if (rec.expiresAt && Date.parse(rec.expiresAt) <= Date.now())
      throw new SandboxOAuthError('expired_token', `The token expired on ${rec.expiresAt}.`);
    return { grant, kind: rec.kind, subject: rec.subject, expiresAt: rec.expiresAt };
  }

  /** Marks the grant of a token revoked (every token of the grant stops working). */
  async revoke(token: string): Promise<boolean> {
    const rec = await this.store.get<TokenRecord>(['oauth', 'token', token]);
    if (!rec) return false;
    return (
      (await this.store.update<SandboxGrant>(['oauth', 'grant', rec.grantId], (g) => ({ ...g, revoked: true }))) !==
      null
    );
  }

  /** Makes one token expire now. */
  async expire(token: string): Promise<boolean> {
    return (
      (await this.store.update<TokenRecord>(['oauth', 'token', token], (t) => ({
        ...t,
        expiresAt: new Date(Date.now() - 1000).toISOString(),
      }))) !== null
    );
  }

  private async approve(req: AuthorizeRequest): Promise<string> {
    const code = randomBytes(24).toString('base64url');
    const rec: CodeRecord = { ...req, userId: sandboxNumericId() };
    await this.store.put(['oauth', 'code', req.network, code], rec, CODE_TTL_SECONDS);
    return withQuery(req.redirectUri, { code, state: req.state });
  }
}

function expiry(ttl: number | null | undefined): string | null {
  return ttl ? new Date(Date.now() + ttl * 1000).toISOString() : null;
}

function pkceMatches(challenge: string, method: string, verifier: string): boolean {
  if (method.toUpperCase() === 'S256') return createHash('sha256').update(verifier).digest('base64url') === challenge;
  return verifier === challenge;
}

export function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

function consentPage(p: PendingConsent): string {
  const scopes = p.scopes.length
    ? `<ul>${p.scopes.map((s) => `<li><code>${esc(s)}</code></li>`).join('')}</ul>`
    : '<p>No extra permissions.</p>';
  return layout({
    title: `Connect to ${p.network} (sandbox)`,
    body:
      `<h1>Connect a sandbox ${esc(p.network)} account</h1><p><strong>${esc(p.appLabel ?? p.clientId)}</strong> asks for these permissions:</p>${scopes}` +
      `<p>This is a simulated network: allowing creates a new sandbox account.</p>` +
      `<form method="post" action="${CONSENT_PATH}"><input type="hidden" name="consent" value="${esc(p.id)}">` +
      `<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Cancel</button></form>`,
  });
}
