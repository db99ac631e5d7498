import { AccountConnectionsService } from '@/modules/accounts/account-connections.service';
import type { AccountDto } from '@/modules/accounts/dto/account.dto';
import type { GrantedAccount } from '@/modules/networks/kit/adapter';
import type { PlatformName } from '@/modules/networks/platform-name';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

/**
 * Accounts are seeded through AccountConnectionsService (what the connect callback calls);
 * the OAuth flow itself is covered by connect.e2e-spec.ts.
 */
describe('accounts', () => {
  let t: TestApp;
  let tenant: Tenant;
  let seq = 0;

  async function seed(
    owner: { workspaceId: string; profileId: string },
    platform: PlatformName,
    granted: Partial<GrantedAccount> = {},
  ): Promise<AccountDto> {
    seq += 1;
    const account: GrantedAccount = {
      platformAccountId: `pa-${seq}`,
      name: `Page ${seq}`,
      username: `page${seq}`,
      avatarUrl: null,
      ...granted,
    };
    const [saved] = await t.ds.transaction((m) =>
      t.app.get(AccountConnectionsService).saveGrant(
        m,
        { ...owner, platform },
        [account],
        {
          accessToken: `plain-access-${seq}`,
          refreshToken: `plain-refresh-${seq}`,
          expiresAt: new Date(Date.now() + 3600_000),
        },
        { type: 'system', id: null },
        {},
      ),
    );
    return saved;
  }

  async function events(profileId: string, type: string): Promise<{ data: Record<string, unknown> }[]> {
    return t.ds.query(`SELECT data FROM events WHERE profile_id = $1 AND type = $2 ORDER BY created_at`, [
      profileId,
      type,
    ]);
  }

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
  });
  afterAll(async () => t.close());

  it("should list the profile's accounts without any token", async () => {
    const a = await seed(tenant, 'linkedin', { name: 'Acme <Ltd>' });
    const res = await t.http().get('/v1/accounts').set(tenant.auth).expect(200);
    const listed = (res.body.accounts as AccountDto[]).find((x) => x.id === a.id);
    expect(listed).toEqual({
      id: a.id,
      profileId: tenant.profileId,
      platform: 'linkedin',
      platformAccountId: a.platformAccountId,
      name: 'Acme <Ltd>',
      username: a.username,
      avatarUrl: null,
      status: 'active',
      commentSync: false,
      connectedAt: expect.any(String),
      tokenExpiresAt: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/plain-(access|refresh)|accessToken|refreshToken|_enc/);
  });

  it('should answer the older social-pages listing', async () => {
    const a = await seed(tenant, 'facebook', { name: 'Bakery' });
    const res = await t.http().get('/v1/social-pages').set(tenant.auth).expect(200);
    expect(res.body.pages).toContainEqual({
      id: a.id,
      platform: 'facebook',
      platformPageId: a.platformAccountId,
      pageName: 'Bakery',
    });
    expect(Object.keys(res.body.pages[0]).sort()).toEqual(['id', 'pageName', 'platform', 'platformPageId']);
  });

  it('should filter the listing by platform', async () => {
    const res = await t.http().get('/v1/accounts?platform=facebook').set(tenant.auth).expect(200);
    expect(res.body.accounts.length).toBeGreaterThan(0);
    expect(res.body.accounts.every((a: AccountDto) => a.platform === 'facebook')).toBe(true);
    const bad = await t.http().get('/v1/accounts?platform=myspace').set(tenant.auth).expect(400);
    expect(bad.body.error.code).toBe('invalid_request');
  });

  it('should get one account, and answer 404 for unknown or malformed ids', async () => {
    const a = await seed(tenant, 'tiktok');
    const res = await t.http().get(`/v1/accounts/${a.id}`).set(tenant.auth).expect(200);
    expect(res.body.account.id).toBe(a.id);
    const missing = await t
      .http()
      .get('/v1/accounts/7f1d2c9e-9d0e-4a7b-8a39-1c2d3e4f5a6b')
      .set(tenant.auth)
      .expect(404);
    expect(missing.body.error.code).toBe('not_found');
    await t.http().get('/v1/accounts/not-a-uuid').set(tenant.auth).expect(404);
  });

  it('should not return, change or disconnect an account of another profile or workspace', async () => {
    const other = await createTenant(t);
    const foreign = await seed(other, 'youtube');
    const profile = await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Second' }).expect(201);
    const sibling = await seed(
      { workspaceId: tenant.workspaceId, profileId: profile.body.profile.id as string },
      'threads',
    );
    for (const id of [foreign.id, sibling.id]) {
      const get = await t.http().get(`/v1/accounts/${id}`).set(tenant.auth).expect(404);
      expect(get.body.error.code).toBe('not_found');
      await t.http().patch(`/v1/accounts/${id}`).set(tenant.auth).send({ commentSync: true }).expect(404);
      await t.http().delete(`/v1/accounts/${id}`).set(tenant.auth).expect(404);
    }
    const listed = await t.http().get('/v1/accounts').set(tenant.auth).expect(200);
    const ids = listed.body.accounts.map((a: AccountDto) => a.id);
    expect(ids).not.toContain(foreign.id);
    expect(ids).not.toContain(sibling.id);
    // The sibling profile is reachable with profileId.
    const viaProfile = await t
      .http()
      .get(`/v1/accounts/${sibling.id}?profileId=${profile.body.profile.id}`)
      .set(tenant.auth)
      .expect(200);
    expect(viaProfile.body.account.id).toBe(sibling.id);
    const [row] = await t.ds.query(`SELECT comment_sync, status FROM social_accounts WHERE id = $1`, [foreign.id]);
    expect(row).toEqual({ comment_sync: false, status: 'active' });
  });

  it('should set commentSync with PATCH and record account.updated', async () => {
    const a = await seed(tenant, 'instagram');
    const res = await t.http().patch(`/v1/accounts/${a.id}`).set(tenant.auth).send({ commentSync: true }).expect(200);
    expect(res.body.account.commentSync).toBe(true);
    const again = await t.http().get(`/v1/accounts/${a.id}`).set(tenant.auth).expect(200);
    expect(again.body.account.commentSync).toBe(true);
    const updated = await events(tenant.profileId, 'account.updated');
    expect(updated.some((e) => (e.data.account as AccountDto).id === a.id)).toBe(true);
    const bad = await t.http().patch(`/v1/accounts/${a.id}`).set(tenant.auth).send({ commentSync: 'yes' }).expect(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'commentSync' } });
    await t.http().patch(`/v1/accounts/${a.id}`).set(tenant.auth).send({ status: 'active' }).expect(400);
  });

  it('should disconnect: tokens wiped, account.disconnected once, left out of listings', async () => {
    const a = await seed(tenant, 'facebook');
    const res = await t.http().delete(`/v1/accounts/${a.id}`).set(tenant.auth).expect(200);
    expect(res.body.account).toMatchObject({ id: a.id, status: 'disconnected', tokenExpiresAt: null });
    const [row] = await t.ds.query(
      `SELECT status, access_token_enc, refresh_token_enc, token_key_id, disconnected_at FROM social_accounts WHERE id = $1`,
      [a.id],
    );
    expect(row).toMatchObject({
      status: 'disconnected',
      access_token_enc: null,
      refresh_token_enc: null,
      token_key_id: null,
    });
    expect(row.disconnected_at).not.toBeNull();
    await t.http().delete(`/v1/accounts/${a.id}`).set(tenant.auth).expect(200);
    const fired = (await events(tenant.profileId, 'account.disconnected')).filter(
      (e) => (e.data.account as AccountDto).id === a.id,
    );
    expect(fired).toHaveLength(1);
    expect(fired[0].data).toMatchObject({
      profileId: tenant.profileId,
      reason: 'requested',
      account: { id: a.id, status: 'disconnected' },
    });
    const list = await t.http().get('/v1/accounts').set(tenant.auth).expect(200);
    expect(list.body.accounts.map((x: AccountDto) => x.id)).not.toContain(a.id);
    const pages = await t.http().get('/v1/social-pages').set(tenant.auth).expect(200);
    expect(pages.body.pages.map((x: { id: string }) => x.id)).not.toContain(a.id);
    // Still readable by id, showing its status.
    const get = await t.http().get(`/v1/accounts/${a.id}`).set(tenant.auth).expect(200);
    expect(get.body.account.status).toBe('disconnected');
  });

  it('should show a key restricted to accounts only those accounts', async () => {
    const allowed = await seed(tenant, 'linkedin');
    const hidden = await seed(tenant, 'linkedin');
    const created = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .send({ name: 'restricted', permissions: ['accounts:read', 'accounts:write'], accountIds: [allowed.id] })
      .expect(201);
    const restricted = { Authorization: `Bearer ${created.body.secret}` };
    const list = await t.http().get('/v1/accounts').set(restricted).expect(200);
    expect(list.body.accounts.map((a: AccountDto) => a.id)).toEqual([allowed.id]);
    const pages = await t.http().get('/v1/social-pages').set(restricted).expect(200);
    expect(pages.body.pages.map((a: { id: string }) => a.id)).toEqual([allowed.id]);
    await t.http().get(`/v1/accounts/${allowed.id}`).set(restricted).expect(200);
    const denied = await t.http().get(`/v1/accounts/${hidden.id}`).set(restricted).expect(404);
    expect(denied.body.error.code).toBe('not_found');
    await t.http().delete(`/v1/accounts/${hidden.id}`).set(restricted).expect(404);
  });

  it('should require accounts:read to list and accounts:write to change', async () => {
    const a = await seed(tenant, 'youtube');
    const created = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .send({ name: 'read-only', permissions: ['accounts:read'] })
      .expect(201);
    const readOnly = { Authorization: `Bearer ${created.body.secret}` };
    await t.http().get('/v1/accounts').set(readOnly).expect(200);
    const patch = await t.http().patch(`/v1/accounts/${a.id}`).set(readOnly).send({ commentSync: true }).expect(403);
    expect(patch.body.error).toMatchObject({
      code: 'insufficient_permission',
      details: { required: 'accounts:write' },
    });
    await t.http().delete(`/v1/accounts/${a.id}`).set(readOnly).expect(403);
    const noRead = await t
      .http()
      .post('/v1/api-keys')
      .set(tenant.auth)
      .send({ name: 'posts-only', permissions: ['posts:read'] })
      .expect(201);
    const res = await t
      .http()
      .get('/v1/accounts')
      .set({ Authorization: `Bearer ${noRead.body.secret}` })
      .expect(403);
    expect(res.body.error.details).toEqual({ required: 'accounts:read' });
    await t.http().get('/v1/accounts').expect(401);
  });

  it('should update an account connected again instead of adding a second one', async () => {
    const first = await seed(tenant, 'tiktok', { platformAccountId: 'same-creator', name: 'Old name' });
    await t.http().delete(`/v1/accounts/${first.id}`).set(tenant.auth).expect(200);
    const again = await seed(tenant, 'tiktok', { platformAccountId: 'same-creator', name: 'New name' });
    expect(again).toMatchObject({ id: first.id, name: 'New name', status: 'active' });
    const [{ n }] = await t.ds.query(
      `SELECT count(*)::int AS n FROM social_accounts WHERE profile_id = $1 AND platform_account_id = 'same-creator'`,
      [tenant.profileId],
    );
    expect(n).toBe(1);
    const connected = (await events(tenant.profileId, 'account.connected')).filter(
      (e) => (e.data.account as AccountDto).id === first.id,
    );
    expect(connected.map((e) => e.data.reconnected)).toEqual([false, true]);
  });
});
