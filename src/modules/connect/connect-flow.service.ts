import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, EntityManager, Repository } from 'typeorm';
import { isUuid } from '@/common/auth/auth.service';
import { SecretBox } from '@/common/crypto/secret-box';
import { OutboxService } from '@/common/outbox/outbox.service';
import { AppConfig } from '@/config/config';
import { AccountConnectionsService } from '../accounts/account-connections.service';
import { AccountsService } from '../accounts/accounts.service';
import { ProfilesService } from '../profiles/profiles.service';
import { ProfileBrandingService } from '../profiles/profile-branding.service';
import { GrantedAccount, OAuthTokens, PlatformError } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import { isPlatformName, PlatformName } from '@/modules/networks/platform-name';
import type { Brand } from '@/common/hosted-pages/hosted-page';
import { HostedOutcome, messagePage, redirect, resultPage, selectionPage } from './connect-pages';
import { ConnectSessionsService, EXPIRED, randomToken } from './connect-sessions.service';
import { ConnectSessionEntity, ConnectSessionError } from './entities/connect-session.entity';

type Input = Record<string, unknown>;

/** A grant covering several accounts, kept (sealed) while the person picks. */
interface PendingGrant {
  tokens: OAuthTokens;
  accounts: GrantedAccount[];
}

const INVALID_LINK = messagePage(404, 'Link not valid', 'This connect link is not valid. Ask for a new one.');
const otherBrowser = (brand: Brand) =>
  messagePage(
    400,
    'Started in another browser',
    'This sign-in was started in another browser, so it cannot finish here. Open the connect link you were given in this browser to start again.',
    brand,
  );

/** Name of the cookie binding a connect flow to its browser (`__Host-` needs https; plain http is development). */
export function connectCookieName(config: AppConfig): string {
  return config.publicBaseUrl.startsWith('https://') ? '__Host-sps_connect' : 'sps_connect';
}

export function connectCookie(nonce: string, expiresAt: Date, config: AppConfig): string {
  const maxAge = Math.max(1, Math.ceil((expiresAt.getTime() - Date.now()) / 1000));
  const secure = config.publicBaseUrl.startsWith('https://') ? '; Secure' : '';
  return `${connectCookieName(config)}=${nonce}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

/** The nonce of the connect cookie in a Cookie header, if well formed. */
export function readConnectCookie(header: string | undefined, config: AppConfig): string | null {
  const name = connectCookieName(config);
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      if (/^[A-Za-z0-9_-]{32,128}$/.test(value)) return value;
    }
  }
  return null;
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The hosted OAuth flow behind a session's `url`:
 * page → network consent (PKCE S256, single-use state) → callback → [page selection] → redirect.
 * Network calls happen outside transactions; each state change commits with its events.
 */
@Injectable()
export class ConnectFlowService {
  private readonly logger = new Logger('ConnectFlow');

  constructor(
    @InjectRepository(ConnectSessionEntity) private readonly sessions: Repository<ConnectSessionEntity>,
    private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
    private readonly platforms: PlatformRegistry,
    private readonly lifecycle: ConnectSessionsService,
    private readonly connections: AccountConnectionsService,
    private readonly accounts: AccountsService,
    private readonly profiles: ProfilesService,
    private readonly branding: ProfileBrandingService,
  ) {}

  /**
   * `GET /connect/:id?token=` — sends the person to the network's consent page. The state in
   * flight is bound to this browser: the connect cookie's nonce (kept if the browser already has
   * one, so two sessions can run side by side) and its hash on the session.
   */
  async start(id: string, query: Input, cookieHeader?: string): Promise<HostedOutcome> {
    const session = await this.findByToken(id, query.token);
    if (!session) return INVALID_LINK;
    if (session.status !== 'pending') return this.resultOf(session);
    if (session.expiresAt.getTime() <= Date.now()) return this.expire(session.id);
    if (session.pendingGrantEnc) return redirect(this.lifecycle.pageUrl(session, '/select'));
    const state = randomToken();
    const verifier = randomToken();
    const nonce = readConnectCookie(cookieHeader, this.config) ?? randomToken();
    // A new visit replaces the state in flight: only the latest consent can come back.
    await this.sessions.update(
      { id: session.id, status: 'pending' },
      { oauthStateHash: sha256(state), codeVerifierEnc: this.box.seal(verifier), browserNonceHash: sha256(nonce) },
    );
    const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
    return {
      ...redirect(
        this.platforms
          .get(session.platform)
          .authorizeUrl({ state, redirectUri: this.callbackUrl(session.platform), codeChallenge }),
      ),
      cookies: [connectCookie(nonce, session.expiresAt, this.config)],
    };
  }

  /** `GET /connect/callback/:platform` — the network's answer: a code, or an error such as access_denied. */
  async callback(platform: string, query: Input, cookieHeader?: string): Promise<HostedOutcome> {
    const state = str(query.state);
    if (!isPlatformName(platform) || !state)
      return messagePage(400, 'Sign-in not valid', 'This sign-in answer is not valid or was already used.');
    const claim = await this.claimState(platform, state, query, readConnectCookie(cookieHeader, this.config));
    if (!claim)
      return messagePage(
        400,
        'This sign-in was already used',
        'This sign-in was already used, perhaps in another tab or window. If your account is not connected yet, open the connect link you were given again to start over.',
      );
    if ('otherBrowser' in claim) return otherBrowser(await this.brandOf(claim.otherBrowser));
    if (!claim.verifier) return this.resultOf(claim.session);
    const adapter = this.platforms.get(platform);
    let grant: PendingGrant;
    try {
      const tokens = await adapter.exchangeCode({
        code: str(query.code)!,
        redirectUri: this.callbackUrl(platform),
        codeVerifier: claim.verifier,
      });
      grant = { tokens, accounts: await adapter.listAccounts(tokens) };
    } catch (err) {
      return this.fail(claim.session.id, { code: 'exchange_failed', message: this.describe(err) });
    }
    if (grant.accounts.length === 0)
      return this.fail(claim.session.id, {
        code: 'no_accounts',
        message: `this ${platform} sign-in gives access to no account that can be connected.`,
      });
    // Sandbox auto-consent has no person in the loop (decisions §4: plain redirects, one account per session).
    const unattended = this.config.sandbox.enabled && this.config.sandbox.autoConsent;
    if (grant.accounts.length === 1 || unattended)
      return this.complete(claim.session.id, grant, grant.accounts.slice(0, 1));
    await this.sessions.update(
      { id: claim.session.id, status: 'pending' },
      { pendingGrantEnc: this.box.seal(JSON.stringify(grant)) },
    );
    return redirect(this.lifecycle.pageUrl(claim.session, '/select'), 303);
  }

  /** `GET /connect/:id/select?token=` — the page listing the grant's accounts. */
  async selection(id: string, query: Input): Promise<HostedOutcome> {
    const session = await this.findByToken(id, query.token);
    if (!session) return INVALID_LINK;
    if (session.status !== 'pending') return this.resultOf(session);
    if (session.expiresAt.getTime() <= Date.now()) return this.expire(session.id);
    if (!session.pendingGrantEnc) return redirect(this.lifecycle.pageUrl(session));
    return this.selectionFor(session, str(query.token)!);
  }

  /** `POST /connect/:id/select` — the form; its `token` field is the CSRF guard. */
  async select(id: string, body: Input): Promise<HostedOutcome> {
    const session = await this.findByToken(id, body.token);
    if (!session) return INVALID_LINK;
    if (session.status !== 'pending' || !session.pendingGrantEnc) return this.resultOf(session, 303);
    if (session.expiresAt.getTime() <= Date.now()) return this.expire(session.id, 303);
    if (body.action === 'cancel')
      return this.fail(session.id, { code: 'cancelled', message: 'The connection was cancelled.' });
    const chosen = new Set(strings(body.accounts));
    const grant = this.openGrant(session);
    const selected = grant.accounts.filter((a) => chosen.has(a.platformAccountId));
    if (selected.length === 0)
      return this.selectionFor(session, str(body.token)!, 'Choose at least one to connect, or press Cancel.');
    return this.complete(session.id, grant, selected);
  }

  /** `GET /connect/:id/done?token=` — the hosted end page when the session has no redirectUrl. */
  async done(id: string, query: Input): Promise<HostedOutcome> {
    const session = await this.findByToken(id, query.token);
    if (!session) return INVALID_LINK;
    const accounts = await this.accounts.findByIds(
      { workspaceId: session.workspaceId, profileId: session.profileId },
      session.accountIds,
    );
    return resultPage({
      platform: session.platform,
      status: session.status,
      accounts,
      error: session.error,
      brand: await this.brandOf(session),
    });
  }

  /** Uses up the state (single use) and reads the PKCE verifier; a denied consent fails the session here. */
  private async claimState(
    platform: PlatformName,
    state: string,
    query: Input,
    nonce: string | null,
  ): Promise<
    { session: ConnectSessionEntity; verifier: string | null } | { otherBrowser: ConnectSessionEntity } | null
  > {
    return this.dataSource.transaction(async (m) => {
      const s = await m.findOne(ConnectSessionEntity, {
        where: { oauthStateHash: sha256(state), platform },
        lock: { mode: 'pessimistic_write' },
      });
      if (!s) return null;
      // Not the browser that opened the link (a forwarded consent link): the state stays usable
      // by that browser, and nothing of the session changes.
      if (!s.browserNonceHash || !nonce || !sameHash(s.browserNonceHash, sha256(nonce))) return { otherBrowser: s };
      const sealedVerifier = s.codeVerifierEnc;
      Object.assign(s, { oauthStateHash: null, codeVerifierEnc: null, browserNonceHash: null });
      if (s.status !== 'pending') return { session: await m.save(s), verifier: null };
      if (s.expiresAt.getTime() <= Date.now()) {
        return { session: await this.lifecycle.finishUnsuccessfully(m, s, 'expired', EXPIRED), verifier: null };
      }
      const denied = str(query.error);
      if (denied || !str(query.code) || !sealedVerifier) {
        const message =
          str(query.error_description) ??
          (denied ? 'Access was not granted.' : 'The network sent no authorization code.');
        return {
          session: await this.lifecycle.finishUnsuccessfully(
            m,
            s,
            'failed',
            { code: denied ?? 'invalid_callback', message },
            s.actor,
          ),
          verifier: null,
        };
      }
      return { session: await m.save(s), verifier: this.box.open(sealedVerifier) };
    });
  }

  /** Saves the chosen accounts and completes the session, with every event, in one transaction. */
  private async complete(sessionId: string, grant: PendingGrant, selected: GrantedAccount[]): Promise<HostedOutcome> {
    const session = await this.dataSource.transaction(async (m) => {
      const s = await this.lockPending(m, sessionId);
      if (!s) return m.findOneByOrFail(ConnectSessionEntity, { id: sessionId });
      // Holds off a concurrent profile deletion until these accounts are visible to it.
      if (!(await this.profiles.holdLive(m, s.profileId)))
        return this.lifecycle.finishUnsuccessfully(
          m,
          s,
          'failed',
          { code: 'profile_deleted', message: 'The profile of this connection no longer exists.' },
          s.actor,
        );
      const target = { workspaceId: s.workspaceId, profileId: s.profileId, platform: s.platform };
      const accounts = await this.connections.saveGrant(m, target, selected, grant.tokens, s.actor, {
        sessionId: s.id,
      });
      Object.assign(s, {
        status: 'completed',
        accountIds: accounts.map((a) => a.id),
        pendingGrantEnc: null,
        finishedAt: new Date(),
      });
      const saved = await m.save(s);
      await this.outbox.record(m, {
        workspaceId: s.workspaceId,
        profileId: s.profileId,
        type: 'connection.completed',
        actor: s.actor,
        data: { sessionId: s.id, platform: s.platform, accounts },
      });
      return saved;
    });
    return this.resultOf(session, 303);
  }

  private async fail(sessionId: string, error: ConnectSessionError): Promise<HostedOutcome> {
    const session = await this.dataSource.transaction(async (m) => {
      const s = await this.lockPending(m, sessionId);
      return s
        ? this.lifecycle.finishUnsuccessfully(m, s, 'failed', error, s.actor)
        : m.findOneByOrFail(ConnectSessionEntity, { id: sessionId });
    });
    return this.resultOf(session, 303);
  }

  private async expire(sessionId: string, status: 302 | 303 = 302): Promise<HostedOutcome> {
    const session = await this.dataSource.transaction(async (m) => {
      const s = await this.lockPending(m, sessionId);
      return s
        ? this.lifecycle.finishUnsuccessfully(m, s, 'expired', EXPIRED)
        : m.findOneByOrFail(ConnectSessionEntity, { id: sessionId });
    });
    return this.resultOf(session, status);
  }

  private lockPending(m: EntityManager, id: string): Promise<ConnectSessionEntity | null> {
    return m.findOne(ConnectSessionEntity, { where: { id, status: 'pending' }, lock: { mode: 'pessimistic_write' } });
  }

  /** Where a finished session sends the person: its redirectUrl (with the outcome) or the hosted end page. */
  private async resultOf(s: ConnectSessionEntity, status: 302 | 303 = 302): Promise<HostedOutcome> {
    if (s.status === 'pending')
      return messagePage(
        409,
        'Connection in progress',
        'This connection is still in progress in another window.',
        await this.brandOf(s),
      );
    if (!s.redirectUrl) return redirect(this.lifecycle.pageUrl(s, '/done'), status);
    const url = new URL(s.redirectUrl);
    url.searchParams.set('session', s.id);
    url.searchParams.set('status', s.status);
    if (s.error) url.searchParams.set('error', s.error.code);
    return redirect(url.toString(), status);
  }

  private brandOf(s: ConnectSessionEntity): Promise<Brand> {
    return this.branding.brandFor(s.workspaceId, s.profileId);
  }

  private async selectionFor(s: ConnectSessionEntity, token: string, error?: string): Promise<HostedOutcome> {
    const choices = this.openGrant(s).accounts.map((a) => ({
      platformAccountId: a.platformAccountId,
      name: a.name,
      username: a.username,
      kind: typeof a.metadata?.kind === 'string' ? a.metadata.kind : undefined,
    }));
    return selectionPage({
      action: `/connect/${s.id}/select`,
      token,
      platform: s.platform,
      choices,
      error,
      brand: await this.brandOf(s),
    });
  }

  private openGrant(s: ConnectSessionEntity): PendingGrant {
    const grant = JSON.parse(this.box.open(s.pendingGrantEnc!)) as PendingGrant;
    const revive = (t: OAuthTokens | undefined): OAuthTokens | undefined =>
      t && {
        ...t,
        expiresAt: t.expiresAt ? new Date(t.expiresAt) : null,
        refreshExpiresAt: t.refreshExpiresAt ? new Date(t.refreshExpiresAt) : null,
      };
    return { tokens: revive(grant.tokens)!, accounts: grant.accounts.map((a) => ({ ...a, tokens: revive(a.tokens) })) };
  }

  /** The session whose page token matches (constant-time); null for anything else. */
  private async findByToken(id: string, token: unknown): Promise<ConnectSessionEntity | null> {
    const given = str(token);
    if (!isUuid(id) || !given) return null;
    const s = await this.sessions.findOne({ where: { id } });
    if (!s) return null;
    const expected = Buffer.from(this.box.open(s.pageTokenEnc));
    const actual = Buffer.from(given);
    return expected.length === actual.length && timingSafeEqual(expected, actual) ? s : null;
  }

  private callbackUrl(platform: PlatformName): string {
    return `${this.config.publicBaseUrl}/connect/callback/${platform}`;
  }

  private describe(err: unknown): string {
    if (err instanceof PlatformError) return err.message;
    this.logger.error({ err }, 'Connect callback failed');
    return 'The network could not complete the sign-in.';
  }
}
