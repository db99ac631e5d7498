import { SecretBox } from '@/common/crypto/secret-box';
import { loadConfig } from '@/config/config';
import { AccountCredentialsService } from '@/modules/accounts/account-credentials.service';
import type { AccountDto } from '@/modules/accounts/dto/account.dto';
import { ConnectSessionsService } from '@/modules/connect/connect-sessions.service';
import { GrantedAccount, PlatformError } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import { PLATFORM_NAMES, PlatformName } from '@/modules/networks/platform-name';
import {
  CLIENT_RETURN_URL,
  connectThroughSandbox,
  defaultJar,
  follow,
  parseForm,
  submitForm,
} from '@test/support/connect-flow';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

interface AccountRow {
  id: string;
  platform: string;
  platform_account_id: string;
  status: string;
  access_token_enc: string | null;
  refresh_token_enc: string | null;
  token_key_id: string | null;
}

describe('connect sessions and hosted OAuth connect', () => {
  let t: TestApp;
  let tenant: Tenant;

  const events = (profileId: string, type: string): Promise<{ data: Record<string, unknown> }[]> =>
    t.ds.query(`SELECT data FROM events WHERE profile_id = $1 AND type = $2 ORDER BY created_at`, [profileId, type]);
  const accountRow = async (id: string): Promise<AccountRow> =>
    (await t.ds.query<AccountRow[]>(`SELECT * FROM social_accounts WHERE id = $1`, [id]))[0];
  const returned = (sessionId: string, status: string) => `${CLIENT_RETURN_URL}?session=${sessionId}&status=${status}`;

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => t.close());
  afterEach(() => jest.restoreAllMocks());

  describe.each(PLATFORM_NAMES.map((p) => [p]))('%s through the sandbox', (platform: PlatformName) => {
    it('should connect one account following redirects with plain HTTP', async () => {
      const before = await t.http().get('/v1/accounts').set(tenant.auth).expect(200);
      const { sessionId, end, forms } = await connectThroughSandbox(t, tenant, platform);
      expect(end.url).toBe(returned(sessionId, 'completed'));
      expect(forms).toEqual([]); // auto-consent: redirects only, no page to fill in

      const session = await t.http().get(`/v1/connect/sessions/${sessionId}`).set(tenant.auth).expect(200);
      expect(session.body).toMatchObject({
        id: sessionId,
        platform,
        profileId: tenant.profileId,
        status: 'completed',
        url: null,
        error: null,
      });
      expect(session.body.accounts).toHaveLength(1);
      const account = session.body.accounts[0] as AccountDto;
      expect(account).toMatchObject({ platform, status: 'active', profileId: tenant.profileId });

      const after = await t.http().get('/v1/accounts').set(tenant.auth).expect(200);
      expect(after.body.accounts).toHaveLength(before.body.accounts.length + 1);
      expect(after.body.accounts).toContainEqual(account);
      const pages = await t.http().get('/v1/social-pages').set(tenant.auth).expect(200);
      expect(pages.body.pages).toContainEqual({
        id: account.id,
        platform,
        platformPageId: account.platformAccountId,
        pageName: account.name,
      });

      const connected = (await events(tenant.profileId, 'account.connected')).filter(
        (e) => e.data.sessionId === sessionId,
      );
      expect(connected).toHaveLength(1);
      expect(connected[0].data).toMatchObject({
        profileId: tenant.profileId,
        account: { id: account.id },
        reconnected: false,
      });
      const completed = (await events(tenant.profileId, 'connection.completed')).filter(
        (e) => e.data.sessionId === sessionId,
      );
      expect(completed).toHaveLength(1);
      expect(completed[0].data).toMatchObject({
        profileId: tenant.profileId,
        platform,
        accounts: [{ id: account.id }],
      });

      // Tokens at rest: AES-256-GCM ciphertext under the current key id, never the plaintext.
      const row = await accountRow(account.id);
      const box = t.app.get(SecretBox);
      const credentials = await t.app.get(AccountCredentialsService).forPublishing(account.id);
      expect(credentials.platformAccountId).toBe(account.platformAccountId);
      expect(row.token_key_id).toBe(t.config.tokenKeys.currentId);
      expect(row.access_token_enc).not.toContain(credentials.accessToken);
      expect(box.open(row.access_token_enc!)).toBe(credentials.accessToken);
      const otherKey = new SecretBox(
        loadConfig(process.env, {
          TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 9).toString('base64'),
          TOKEN_ENCRYPTION_KEY_ID: t.config.tokenKeys.currentId,
        }),
      );
      expect(() => otherKey.open(row.access_token_enc!)).toThrow();
    });
  });

  it('should answer a session in the documented shape and read it back', async () => {
    const res = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'linkedin', redirectUrl: CLIENT_RETURN_URL })
      .expect(201);
    expect(res.body).toMatchObject({
      platform: 'linkedin',
      profileId: tenant.profileId,
      status: 'pending',
      redirectUrl: CLIENT_RETURN_URL,
      accounts: [],
      error: null,
    });
    expect(res.body.url).toMatch(new RegExp(`^${t.config.publicBaseUrl}/connect/${res.body.id}\\?token=`));
    const ttl = Date.parse(res.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(3500_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
    const again = await t.http().get(`/v1/connect/sessions/${res.body.id}`).set(tenant.auth).expect(200);
    expect(again.body).toEqual(res.body);
  });

  it('should start a fresh session with GET /v1/connect/:platform', async () => {
    const res = await t
      .http()
      .get(`/v1/connect/tiktok?redirectUrl=${encodeURIComponent(CLIENT_RETURN_URL)}`)
      .set(tenant.auth)
      .expect(200);
    expect(res.body).toMatchObject({ platform: 'tiktok', status: 'pending', redirectUrl: CLIENT_RETURN_URL });
    const end = await follow(res.body.url as string, { stopAt: CLIENT_RETURN_URL });
    expect(end.url).toBe(returned(res.body.id as string, 'completed'));
    const bad = await t.http().get('/v1/connect/myspace').set(tenant.auth).expect(400);
    expect(bad.body.error.code).toBe('invalid_request');
  });

  it('should end on the hosted "connected" page when the session has no redirectUrl', async () => {
    const { sessionId, end } = await connectThroughSandbox(t, tenant, 'youtube', { redirectUrl: null });
    expect(end.status).toBe(200);
    expect(end.url).toContain(`/connect/${sessionId}/done?token=`);
    expect(end.body).toContain('YouTube connected');
    const session = await t.http().get(`/v1/connect/sessions/${sessionId}`).set(tenant.auth).expect(200);
    expect(end.body).toContain(session.body.accounts[0].name);
  });

  it('should validate the body', async () => {
    const platform = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'myspace' })
      .expect(400);
    expect(platform.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'platform' } });
    const url = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'facebook', redirectUrl: 'javascript:alert(1)' })
      .expect(400);
    expect(url.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'redirectUrl' } });
  });

  it('should fail the session with connection.failed when consent is denied', async () => {
    const create = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'linkedin', redirectUrl: CLIENT_RETURN_URL })
      .expect(201);
    // Stop at the network's consent page and answer as the network does on "Cancel".
    const start = await fetch(create.body.url as string, { redirect: 'manual' });
    defaultJar.take(start); // the same browser answers the callback
    const consent = new URL(start.headers.get('location')!);
    const state = consent.searchParams.get('state')!;
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
    const end = await follow(
      `${t.url}/connect/callback/linkedin?error=access_denied&error_description=${encodeURIComponent('The user denied the request.')}&state=${state}`,
      {
        stopAt: CLIENT_RETURN_URL,
      },
    );
    expect(end.url).toBe(`${returned(create.body.id as string, 'failed')}&error=access_denied`);
    const session = await t.http().get(`/v1/connect/sessions/${create.body.id}`).set(tenant.auth).expect(200);
    expect(session.body).toMatchObject({
      status: 'failed',
      url: null,
      accounts: [],
      error: { code: 'access_denied', message: 'The user denied the request.' },
    });
    const failed = (await events(tenant.profileId, 'connection.failed')).filter(
      (e) => e.data.sessionId === create.body.id,
    );
    expect(failed).toHaveLength(1);
    expect(failed[0].data).toMatchObject({ status: 'failed', error: { code: 'access_denied' } });
  });

  it('should accept an OAuth state once, and only the latest one of a session', async () => {
    const create = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'tiktok', redirectUrl: CLIENT_RETURN_URL })
      .expect(201);
    const stale = new URL(
      (await fetch(create.body.url as string, { redirect: 'manual' })).headers.get('location')!,
    ).searchParams.get('state')!;
    const end = await follow(create.body.url as string, { stopAt: CLIENT_RETURN_URL });
    expect(end.url).toBe(returned(create.body.id as string, 'completed'));
    const callback = end.hops.find((h) => h.url.includes('/connect/callback/'))!;
    const replay = await fetch(callback.url, { redirect: 'manual' });
    expect(replay.status).toBe(400);
    const old = await fetch(`${t.url}/connect/callback/tiktok?code=abc&state=${stale}`, { redirect: 'manual' });
    expect(old.status).toBe(400);
    const unknown = await fetch(`${t.url}/connect/callback/tiktok?code=abc&state=nope`, { redirect: 'manual' });
    expect(unknown.status).toBe(400);
    const session = await t.http().get(`/v1/connect/sessions/${create.body.id}`).set(tenant.auth).expect(200);
    expect(session.body.accounts).toHaveLength(1);
  });

  it('should refuse hosted pages without the session token', async () => {
    const create = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'facebook' })
      .expect(201);
    for (const url of [
      `${t.url}/connect/${create.body.id}`,
      `${t.url}/connect/${create.body.id}?token=wrong`,
      `${t.url}/connect/${create.body.id}/done?token=wrong`,
      `${t.url}/connect/not-a-uuid?token=x`,
    ]) {
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('should update an account connected again (same id, new tokens, active) instead of duplicating it', async () => {
    const first = await connectThroughSandbox(t, tenant, 'linkedin');
    const { body } = await t.http().get(`/v1/connect/sessions/${first.sessionId}`).set(tenant.auth).expect(200);
    const original = body.accounts[0] as AccountDto;
    const before = await accountRow(original.id);
    await t.http().delete(`/v1/accounts/${original.id}`).set(tenant.auth).expect(200);

    // The sandbox makes a new member per grant; have this grant come back as the same member.
    const adapter = t.app.get(PlatformRegistry).get('linkedin');
    const real = adapter.listAccounts.bind(adapter);
    jest
      .spyOn(adapter, 'listAccounts')
      .mockImplementation(async (tokens) =>
        (await real(tokens)).slice(0, 1).map((a) => ({ ...a, platformAccountId: original.platformAccountId })),
      );
    const second = await connectThroughSandbox(t, tenant, 'linkedin');
    expect(second.end.url).toBe(returned(second.sessionId, 'completed'));
    const again = await t.http().get(`/v1/connect/sessions/${second.sessionId}`).set(tenant.auth).expect(200);
    expect(again.body.accounts[0]).toMatchObject({ id: original.id, status: 'active' });
    const after = await accountRow(original.id);
    expect(after.access_token_enc).not.toBe(before.access_token_enc);
    const [{ n }] = await t.ds.query(
      `SELECT count(*)::int AS n FROM social_accounts WHERE profile_id = $1 AND platform_account_id = $2`,
      [tenant.profileId, original.platformAccountId],
    );
    expect(n).toBe(1);
    const reconnected = (await events(tenant.profileId, 'account.connected')).filter(
      (e) => e.data.sessionId === second.sessionId,
    );
    expect(reconnected[0].data).toMatchObject({ reconnected: true, account: { id: original.id } });
  });

  it('should expire sessions older than an hour with connection.failed', async () => {
    const create = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'instagram', redirectUrl: CLIENT_RETURN_URL })
      .expect(201);
    await t.ds.query(`UPDATE connect_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [
      create.body.id,
    ]);
    expect(await t.app.get(ConnectSessionsService).expireDue()).toBeGreaterThanOrEqual(1);
    const session = await t.http().get(`/v1/connect/sessions/${create.body.id}`).set(tenant.auth).expect(200);
    expect(session.body).toMatchObject({ status: 'expired', url: null, error: { code: 'expired' } });
    const failed = (await events(tenant.profileId, 'connection.failed')).filter(
      (e) => e.data.sessionId === create.body.id,
    );
    expect(failed).toHaveLength(1);
    expect(failed[0].data).toMatchObject({ status: 'expired' });
    // The old link now ends the flow as expired.
    const end = await follow(create.body.url as string, { stopAt: CLIENT_RETURN_URL });
    expect(end.url).toBe(`${returned(create.body.id as string, 'expired')}&error=expired`);
    expect(await t.app.get(ConnectSessionsService).expireDue()).toBe(0);
  });

  it('should not show a session of another profile or workspace', async () => {
    const other = await createTenant(t);
    const foreign = await t
      .http()
      .post('/v1/connect/sessions')
      .set(other.auth)
      .send({ platform: 'facebook' })
      .expect(201);
    const res = await t.http().get(`/v1/connect/sessions/${foreign.body.id}`).set(tenant.auth).expect(404);
    expect(res.body.error.code).toBe('not_found');
    const profile = await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Connect sibling' }).expect(201);
    const sibling = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'facebook', profileId: profile.body.profile.id })
      .expect(201);
    expect(sibling.body.profileId).toBe(profile.body.profile.id);
    await t.http().get(`/v1/connect/sessions/${sibling.body.id}`).set(tenant.auth).expect(404);
    await t
      .http()
      .get(`/v1/connect/sessions/${sibling.body.id}?profileId=${profile.body.profile.id}`)
      .set(tenant.auth)
      .expect(200);
    await t.http().get('/v1/connect/sessions/not-a-uuid').set(tenant.auth).expect(404);
  });

  it('should gate hosted connect by plan and permission', async () => {
    const starter = await createTenant(t, { plan: 'starter' });
    const res = await t
      .http()
      .post('/v1/connect/sessions')
      .set(starter.auth)
      .send({ platform: 'facebook' })
      .expect(403);
    expect(res.body.error).toMatchObject({ code: 'plan_limit', details: { entitlement: 'hosted_connect' } });
    const viaGet = await t.http().get('/v1/connect/facebook').set(starter.auth).expect(403);
    expect(viaGet.body.error.code).toBe('plan_limit');
    const key = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .send({ name: 'reader', permissions: ['accounts:read'] })
      .expect(201);
    const denied = await t
      .http()
      .post('/v1/connect/sessions')
      .set({ Authorization: `Bearer ${key.body.secret}` })
      .send({ platform: 'facebook' })
      .expect(403);
    expect(denied.body.error).toMatchObject({
      code: 'insufficient_permission',
      details: { required: 'accounts:write' },
    });
  });

  describe('with SANDBOX_AUTO_CONSENT=false (plain HTTP through the consent page)', () => {
    let tp: TestApp;
    let owner: Tenant;

    beforeAll(async () => {
      tp = await createTestApp({ env: { SANDBOX_AUTO_CONSENT: 'false' } });
      owner = await createTenant(tp);
    });
    afterAll(async () => tp.close());

    /** Creates a session and allows on the sandbox consent page; returns the page that follows. */
    async function throughConsent(
      platform: PlatformName,
    ): Promise<{ id: string; page: Awaited<ReturnType<typeof follow>> }> {
      const create = await tp
        .http()
        .post('/v1/connect/sessions')
        .set(owner.auth)
        .send({ platform, redirectUrl: CLIENT_RETURN_URL })
        .expect(201);
      const consent = await follow(create.body.url as string, { stopAt: CLIENT_RETURN_URL });
      expect(consent.status).toBe(200);
      const form = parseForm(consent.body, consent.url)!;
      expect(new URL(form.action).pathname).toBe('/sandbox/_control/consent');
      return { id: create.body.id as string, page: await submitForm(form, { decision: 'allow' }, CLIENT_RETURN_URL) };
    }

    it('should list the several Facebook pages of a grant and connect the ones picked', async () => {
      const { id, page } = await throughConsent('facebook');
      expect(page.status).toBe(200);
      expect(page.url).toContain(`/connect/${id}/select?token=`);
      const form = parseForm(page.body, page.url)!;
      expect(form.accounts.length).toBeGreaterThan(1);
      const picked = form.accounts.slice(0, 2);
      const end = await submitForm(form, { action: 'connect', accounts: picked }, CLIENT_RETURN_URL);
      expect(end.url).toBe(returned(id, 'completed'));
      const session = await tp.http().get(`/v1/connect/sessions/${id}`).set(owner.auth).expect(200);
      expect(session.body.accounts.map((a: AccountDto) => a.platformAccountId).sort()).toEqual([...picked].sort());
      const completed = await tp.ds.query<{ data: { accounts: AccountDto[] } }[]>(
        `SELECT data FROM events WHERE type = 'connection.completed' AND data->>'sessionId' = $1`,
        [id],
      );
      expect(completed).toHaveLength(1);
      expect(completed[0].data.accounts).toHaveLength(2);
      const connected = await tp.ds.query(
        `SELECT 1 FROM events WHERE type = 'account.connected' AND data->>'sessionId' = $1`,
        [id],
      );
      expect(connected).toHaveLength(2);
    });

    it('should guard the picker with the session token, escape names and refuse an empty choice', async () => {
      const adapter = tp.app.get(PlatformRegistry).get('linkedin');
      const real = adapter.listAccounts.bind(adapter);
      jest.spyOn(adapter, 'listAccounts').mockImplementation(async (tokens) => {
        const [member] = await real(tokens);
        const org = (n: number, name: string): GrantedAccount => ({
          ...member,
          platformAccountId: `${member.platformAccountId}-org${n}`,
          name,
        });
        return [org(1, 'Acme <script>alert(1)</script>'), org(2, 'Globex & Co')];
      });
      const { id, page } = await throughConsent('linkedin');
      expect(page.body).toContain('Acme &lt;script&gt;alert(1)&lt;/script&gt;');
      expect(page.body).not.toContain('<script>');
      expect(page.body).toContain('Globex &amp; Co');
      const form = parseForm(page.body, page.url)!;
      expect(form.accounts).toHaveLength(2);

      const forged = await submitForm(
        form,
        { token: 'not-the-token', action: 'connect', accounts: form.accounts },
        CLIENT_RETURN_URL,
      );
      expect(forged.status).toBe(404);
      const none = await submitForm(form, { action: 'connect' }, CLIENT_RETURN_URL);
      expect(none.status).toBe(400);
      expect(none.body).toContain('Choose at least one to connect');
      const pending = await tp.http().get(`/v1/connect/sessions/${id}`).set(owner.auth).expect(200);
      expect(pending.body.status).toBe('pending');

      const end = await submitForm(form, { action: 'connect', accounts: [form.accounts[1]] }, CLIENT_RETURN_URL);
      expect(end.url).toBe(returned(id, 'completed'));
      const done = await tp.http().get(`/v1/connect/sessions/${id}`).set(owner.auth).expect(200);
      expect(done.body.accounts.map((a: AccountDto) => a.name)).toEqual(['Globex & Co']);
      // The form cannot be replayed once the session is finished.
      const replay = await submitForm(form, { action: 'connect', accounts: [form.accounts[0]] }, CLIENT_RETURN_URL);
      expect(replay.url).toBe(returned(id, 'completed'));
      const [{ n }] = await tp.ds.query(
        `SELECT count(*)::int AS n FROM social_accounts WHERE platform_account_id = $1`,
        [form.accounts[0]],
      );
      expect(n).toBe(0);
    });

    it('should fail the session when the picker is cancelled', async () => {
      const { id, page } = await throughConsent('facebook');
      const end = await submitForm(parseForm(page.body, page.url)!, { action: 'cancel' }, CLIENT_RETURN_URL);
      expect(end.url).toBe(`${returned(id, 'failed')}&error=cancelled`);
      const session = await tp.http().get(`/v1/connect/sessions/${id}`).set(owner.auth).expect(200);
      expect(session.body).toMatchObject({ status: 'failed', accounts: [], error: { code: 'cancelled' } });
    });

    it('should fail the session with access_denied when consent is refused on the network', async () => {
      const create = await tp
        .http()
        .post('/v1/connect/sessions')
        .set(owner.auth)
        .send({ platform: 'threads', redirectUrl: CLIENT_RETURN_URL })
        .expect(201);
      const consent = await follow(create.body.url as string, { stopAt: CLIENT_RETURN_URL });
      const end = await submitForm(parseForm(consent.body, consent.url)!, { decision: 'deny' }, CLIENT_RETURN_URL);
      expect(end.url).toBe(`${returned(create.body.id as string, 'failed')}&error=access_denied`);
      const failed = await tp.ds.query(
        `SELECT data FROM events WHERE type = 'connection.failed' AND data->>'sessionId' = $1`,
        [create.body.id],
      );
      expect(failed).toHaveLength(1);
    });
  });

  describe('token refresh', () => {
    async function connectedAccount(platform: PlatformName): Promise<AccountDto> {
      const { sessionId } = await connectThroughSandbox(t, tenant, platform);
      const { body } = await t.http().get(`/v1/connect/sessions/${sessionId}`).set(tenant.auth).expect(200);
      return body.accounts[0] as AccountDto;
    }

    it('should refresh a token expiring within 5 minutes before publishing, once across two processes', async () => {
      const account = await connectedAccount('tiktok');
      const t2 = await createTestApp({ shareWith: t });
      try {
        const old = await t.app.get(AccountCredentialsService).forPublishing(account.id);
        await t.ds.query(`UPDATE social_accounts SET token_expires_at = now() + interval '1 minute' WHERE id = $1`, [
          account.id,
        ]);
        const spies = [t, t2].map((app) => jest.spyOn(app.app.get(PlatformRegistry).get('tiktok'), 'refresh'));
        const [a, b] = await Promise.all([
          t.app.get(AccountCredentialsService).forPublishing(account.id),
          t2.app.get(AccountCredentialsService).forPublishing(account.id),
        ]);
        expect(spies.reduce((n, s) => n + s.mock.calls.length, 0)).toBe(1);
        expect(a.accessToken).toBe(b.accessToken);
        expect(a.accessToken).not.toBe(old.accessToken);
        const row = await t.ds.query(`SELECT token_expires_at FROM social_accounts WHERE id = $1`, [account.id]);
        expect(new Date(row[0].token_expires_at).getTime()).toBeGreaterThan(Date.now() + 3600_000);
      } finally {
        await t2.close();
      }
    });

    it('should refresh tokens expiring within 24 hours in the refresh-tokens job, at most every 12 hours', async () => {
      const account = await connectedAccount('youtube');
      const before = await accountRow(account.id);
      const credentials = t.app.get(AccountCredentialsService);
      await t.ds.query(`UPDATE social_accounts SET token_expires_at = now() + interval '3 hours' WHERE id = $1`, [
        account.id,
      ]);
      // Issued moments ago: a short-lived token is left to publish-time refresh.
      await credentials.refreshDue();
      expect((await accountRow(account.id)).access_token_enc).toBe(before.access_token_enc);

      await t.ds.query(`UPDATE social_accounts SET token_issued_at = now() - interval '13 hours' WHERE id = $1`, [
        account.id,
      ]);
      const run = await credentials.refreshDue();
      expect(run.refreshed).toBeGreaterThanOrEqual(1);
      const after = await accountRow(account.id);
      expect(after.access_token_enc).not.toBe(before.access_token_enc);
      expect(after.status).toBe('active');
      const fresh = await credentials.forPublishing(account.id);
      expect(t.app.get(SecretBox).open(after.access_token_enc!)).toBe(fresh.accessToken);
    });

    it('should mark the account expired with account.disconnected when the network refuses the refresh', async () => {
      const account = await connectedAccount('tiktok');
      const box = t.app.get(SecretBox);
      const row = await accountRow(account.id);
      const refreshToken = box.open(row.refresh_token_enc!);
      await t
        .http()
        .post('/sandbox/_control/revoke')
        .send({ refreshToken })
        .expect((r) => expect(r.status).toBeLessThan(300));
      await t.ds.query(`UPDATE social_accounts SET token_expires_at = now() + interval '1 minute' WHERE id = $1`, [
        account.id,
      ]);

      const err = (await t.app
        .get(AccountCredentialsService)
        .forPublishing(account.id)
        .catch((e: unknown) => e)) as PlatformError;
      expect(err).toBeInstanceOf(PlatformError);
      expect(err.category).toBe('auth_expired');
      const listed = await t.http().get(`/v1/accounts/${account.id}`).set(tenant.auth).expect(200);
      expect(listed.body.account.status).toBe('expired');
      const fired = (await events(tenant.profileId, 'account.disconnected')).filter(
        (e) => (e.data.account as AccountDto).id === account.id,
      );
      expect(fired).toHaveLength(1);
      expect(fired[0].data).toMatchObject({ reason: 'token_expired', account: { id: account.id, status: 'expired' } });
      // Publishing with an expired account fails the same way, without calling the network again.
      await expect(t.app.get(AccountCredentialsService).forPublishing(account.id)).rejects.toMatchObject({
        category: 'auth_expired',
      });
      expect(
        (await events(tenant.profileId, 'account.disconnected')).filter(
          (e) => (e.data.account as AccountDto).id === account.id,
        ),
      ).toHaveLength(1);
    });
  });
});
