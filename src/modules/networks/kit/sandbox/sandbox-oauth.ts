import { Injectable } from '@nestjs/common';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Response } from 'express';
import { esc, layout, messageHtml } from '@/common/hosted-pages/hosted-page';
import { AppConfig } from '@/config/config';
import { qs, type Q } from './sandbox-request';
import { SandboxStore } from './sandbox-store';

/**
 * The consent flow and token book-keeping every simulated network shares:
 *   authorize → (auto consent: 302 | consent page → POST /sandbox/_control/consent → 302)
 *   → redirect_uri?code=…&state=…  → redeemCode() → issueTokens() → verify()
 * Every grant is a brand-new sandbox user, so each connect adds an account.
 */
type AuthorizeRequest = ReturnType<typeof authorizeRequest>;

export interface SandboxGrant {
  id: string;
  network: string;
  /** The sandbox user this grant belongs to (new for every grant). */
  userId: string;
  scopes: string[];
  revoked: boolean;
}

export interface TokenInfo {
  grant: SandboxGrant;
  /** What the token acts for when it is narrower than the grant (a Facebook Page token: the page id). */
  subject: string | null;
}

export type OAuthFailure = 'invalid_client' | 'invalid_grant' | 'invalid_token' | 'expired_token' | 'revoked_token';

/** How a network names the fields of its authorize URL (defaults: RFC 6749 with PKCE). */
export interface AuthorizeQueryOptions {
  network: string;
  appLabel: string;
  /** The field of the client id in the authorize query and the token form (TikTok: client_key). */
  clientIdParam?: string;
  /** Between scopes (Google: white space only). */
  scopeSeparator?: RegExp;
  /** false: the network's flow has no PKCE (Threads), code_challenge is ignored. */
  pkce?: boolean;
}

export class SandboxOAuthError extends Error {
  constructor(
    readonly reason: OAuthFailure,
    message: string,
  ) {
    super(message);
  }
}

/** The kit's words for each way a code or token fails (each network answers them in its own format). */
const FAILURES = {
  usedCode: ['invalid_grant', 'This authorization code has expired or has already been used.'],
  otherClient: ['invalid_client', 'The client id does not match the one the code was issued to.'],
  otherRedirect: ['invalid_grant', 'redirect_uri is not identical to the one used in the authorization request.'],
  pkce: ['invalid_grant', 'The code_verifier does not match the code_challenge.'],
  invalidToken: ['invalid_token', 'Invalid OAuth access token - Cannot parse access token'],
  revoked: ['revoked_token', 'The user has revoked this authorization or the session was invalidated.'],
} as const satisfies Record<string, readonly [OAuthFailure, string]>;

const oauthError = (f: keyof typeof FAILURES) => new SandboxOAuthError(FAILURES[f][0], FAILURES[f][1]);

type PendingConsent = AuthorizeRequest & { id: string };
type CodeRecord = AuthorizeRequest & { userId: string };

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

  /** Handles a network's authorize URL (its query, named as `o` says): 302 with a code, or the consent page. */
  async authorize(q: Record<string, unknown>, o: AuthorizeQueryOptions, res: Response): Promise<void> {
    const req = authorizeRequest(q, o);
    if (!req.clientId || !req.redirectUri || !/^https?:\/\//.test(req.redirectUri))
      return htmlPage(res, 400, messageHtml('Invalid request', 'client_id and an absolute redirect_uri are required.'));
    if (this.config.sandbox.autoConsent) return res.redirect(302, await this.approve(req));
    const pending: PendingConsent = { ...req, id: randomBytes(16).toString('hex') };
    await this.store.put(['oauth', 'consent', pending.id], pending, CODE_TTL_SECONDS);
    htmlPage(res, 200, consentPage(pending));
  }

  /** POST target of the consent page (form fields: consent, decision=allow|deny). */
  async consent(form: { consent?: string; decision?: string }, res: Response): Promise<void> {
    const pending = form.consent ? await this.store.take<PendingConsent>(['oauth', 'consent', form.consent]) : null;
    const unknown = 'This consent request is unknown or was already answered. Start the connection again.';
    if (!pending) return htmlPage(res, 400, messageHtml('Request expired', unknown));
    const denied = { error: 'access_denied', error_description: 'The user denied the request.', state: pending.state };
    res.redirect(302, form.decision === 'allow' ? await this.approve(pending) : withQuery(pending.redirectUri, denied));
  }

  /** Exchanges the single-use code of a token request (its form or query); checks client, redirect URI and PKCE. */
  async redeemCode(network: string, form: Q, clientIdParam = 'client_id'): Promise<SandboxGrant> {
    const code = qs(form.code);
    const rec = code ? await this.store.take<CodeRecord>(['oauth', 'code', network, code]) : null;
    if (!rec) throw oauthError('usedCode');
    if (rec.clientId !== qs(form[clientIdParam])) throw oauthError('otherClient');
    if (rec.redirectUri !== qs(form.redirect_uri)) throw oauthError('otherRedirect');
    const verifier = qs(form.code_verifier);
    if (rec.codeChallenge && !pkceMatches(rec.codeChallenge, rec.codeChallengeMethod ?? 'plain', verifier))
      throw oauthError('pkce');
    const { userId, scopes } = rec;
    const grant: SandboxGrant = { id: randomBytes(12).toString('hex'), network, userId, scopes, revoked: false };
    await this.store.put(['oauth', 'grant', grant.id], grant);
    return grant;
  }

  /** Issues an access token (and a refresh token when refreshTtlSeconds is given) for a grant. */
  async issueTokens(
    grant: SandboxGrant,
    o: { accessTtlSeconds: number | null; refreshTtlSeconds?: number | null; subject?: string | null; prefix: string },
  ): Promise<{ accessToken: string; refreshToken: string | null }> {
    const mint = async (kind: TokenRecord['kind'], start: string, ttl: number | null): Promise<string> => {
      const token = start + randomBytes(24).toString('base64url');
      const expiresAt = ttl ? new Date(Date.now() + ttl * 1000).toISOString() : null;
      const rec: TokenRecord = { grantId: grant.id, kind, subject: o.subject ?? null, expiresAt };
      await this.store.put(['oauth', 'token', token], rec);
      return token;
    };
    const accessToken = await mint('access', o.prefix, o.accessTtlSeconds);
    const refreshToken =
      o.refreshTtlSeconds === undefined ? null : await mint('refresh', `${o.prefix}r`, o.refreshTtlSeconds);
    return { accessToken, refreshToken };
  }

  /** Resolves a token of this network; throws SandboxOAuthError when unknown, expired or revoked. */
  async verify(network: string, token?: string | null, kind: 'access' | 'refresh' = 'access'): Promise<TokenInfo> {
    const rec = token ? await this.store.get<TokenRecord>(['oauth', 'token', token]) : null;
    const grant = rec ? await this.store.get<SandboxGrant>(['oauth', 'grant', rec.grantId]) : null;
    if (!rec || !grant || grant.network !== network || rec.kind !== kind) throw oauthError('invalidToken');
    if (grant.revoked) throw oauthError('revoked');
    if (rec.expiresAt && Date.parse(rec.expiresAt) <= Date.now())
      throw new SandboxOAuthError('expired_token', `The token expired on ${rec.expiresAt}.`);
    return { grant, subject: rec.subject };
  }

  /** Marks the grant of a token revoked (every token of the grant stops working); false when there is no such token. */
  async revoke(token?: string): Promise<boolean> {
    const rec = token ? await this.store.get<TokenRecord>(['oauth', 'token', token]) : null;
    const revoked =
      rec && (await this.store.update<SandboxGrant>(['oauth', 'grant', rec.grantId], (g) => ({ ...g, revoked: true })));
    return !!revoked;
  }

  /** Makes one token expire now; false when there is no such token. */
  async expire(token?: string): Promise<boolean> {
    if (!token) return false;
    const expiresAt = new Date(Date.now() - 1000).toISOString();
    return (await this.store.update<TokenRecord>(['oauth', 'token', token], (t) => ({ ...t, expiresAt }))) !== null;
  }

  private async approve(req: AuthorizeRequest): Promise<string> {
    const code = randomBytes(24).toString('base64url');
    const rec: CodeRecord = { ...req, userId: sandboxNumericId() };
    await this.store.put(['oauth', 'code', req.network, code], rec, CODE_TTL_SECONDS);
    return withQuery(req.redirectUri, { code, state: req.state });
  }
}

function authorizeRequest(q: Record<string, unknown>, o: AuthorizeQueryOptions) {
  return {
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
  };
}

function htmlPage(res: Response, status: number, html: string): void {
  res.status(status).type('html').send(html);
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
      `<h1>Connect a sandbox ${esc(p.network)} account</h1><p><strong>${esc(p.appLabel)}</strong> asks for these permissions:</p>${scopes}` +
      `<p>This is a simulated network: allowing creates a new sandbox account.</p>` +
      `<form method="post" action="${CONSENT_PATH}"><input type="hidden" name="consent" value="${esc(p.id)}">` +
      `<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Cancel</button></form>`,
  });
}
