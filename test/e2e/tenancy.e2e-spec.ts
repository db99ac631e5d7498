import { authChanged, createKey, expectError } from '@test/support/e2e-helpers';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';
import { insertAccount } from '@test/support/publishing';

const UNKNOWN = '3fa85f64-5717-4562-b3fc-2c963f66afa6';

describe('tenancy: profiles, keys, policy, plans', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  describe('profiles', () => {
    let tenant: Tenant;
    beforeAll(async () => {
      tenant = await createTenant(t);
    });

    it('should create, read, list, update and delete a profile', async () => {
      const created = await t
        .http()
        .post('/v1/profiles')
        .set(tenant.auth)
        .send({ name: 'Acme', description: 'Customer Acme', externalId: 'cus_42' })
        .expect(201);
      const profile = created.body.profile;
      expect(profile).toEqual({
        id: expect.any(String),
        name: 'Acme',
        description: 'Customer Acme',
        externalId: 'cus_42',
        branding: { displayName: null, logoUrl: null, accentColor: null, supportUrl: null, hostedLogoUrl: null },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });

      expect((await t.http().get(`/v1/profiles/${profile.id}`).set(tenant.auth).expect(200)).body).toEqual({ profile });
      const list = await t.http().get('/v1/profiles').set(tenant.auth).expect(200);
      expect(list.body).toMatchObject({ page: 1, limit: 20, total: 2, hasMore: false });
      expect(list.body.profiles.map((p: { id: string }) => p.id)).toEqual([tenant.profileId, profile.id]);

      const patched = await t
        .http()
        .patch(`/v1/profiles/${profile.id}`)
        .set(tenant.auth)
        .send({ name: 'Acme Inc.' })
        .expect(200);
      expect(patched.body.profile).toMatchObject({
        id: profile.id,
        name: 'Acme Inc.',
        description: 'Customer Acme',
        externalId: 'cus_42',
      });

      expect((await t.http().delete(`/v1/profiles/${profile.id}`).set(tenant.auth).expect(200)).body).toEqual({
        id: profile.id,
        deleted: true,
      });
      expectError(await t.http().get(`/v1/profiles/${profile.id}`).set(tenant.auth), 404, 'not_found');
      expectError(
        await t.http().get(`/v1/profile?profileId=${profile.id}`).set(tenant.auth),
        403,
        'profile_not_accessible',
      );
      expect((await t.http().get('/v1/profiles').set(tenant.auth).expect(200)).body.total).toBe(1);
      // Soft delete: the row stays for the audit trail.
      const [row] = await t.ds.query<
        {
          deleted_at: Date | null;
        }[]
      >('SELECT deleted_at FROM profiles WHERE id = $1', [profile.id]);
      expect(row.deleted_at).toBeInstanceOf(Date);
      const types = (
        await t.http().get(`/v1/events?profileId=${tenant.profileId}`).set(tenant.auth).expect(200)
      ).body.events.map((e: { type: string }) => e.type);
      expect(types).toContain('workspace.created');
    });

    it('should answer GET /v1/profile with the home profile', async () => {
      const res = await t.http().get('/v1/profile').set(tenant.auth).expect(200);
      expect(res.body.profile).toMatchObject({ id: tenant.profileId, name: 'Default' });
    });

    it('should refuse to delete a profile with connected accounts: 409 profile_has_connected_accounts', async () => {
      const p = (await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Busy' }).expect(201)).body.profile;
      const { id: account } = await insertAccount(t, tenant, 'facebook', { profileId: p.id });
      await insertAccount(t, tenant, 'facebook', { profileId: p.id, status: 'disconnected' });
      const error = expectError(
        await t.http().delete(`/v1/profiles/${p.id}`).set(tenant.auth),
        409,
        'profile_has_connected_accounts',
      );
      expect(error.message).toContain('1 connected account');
      await t.http().get(`/v1/profiles/${p.id}`).set(tenant.auth).expect(200);
      // Disconnected accounts do not hold the profile back.
      await t.ds.query(`UPDATE social_accounts SET status = 'disconnected' WHERE id = $1`, [account]);
      await t.http().delete(`/v1/profiles/${p.id}`).set(tenant.auth).expect(200);
    });

    it('should not let a key restricted to profiles create profiles, and list only its profiles', async () => {
      const extra = (await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Outside' }).expect(201)).body
        .profile;
      const scoped = await createKey(t, tenant, {
        profileIds: [tenant.profileId],
        permissions: ['profiles:read', 'profiles:write'],
      });
      expectError(
        await t.http().post('/v1/profiles').set(scoped.auth).send({ name: 'Nope' }),
        403,
        'profile_not_accessible',
      );
      const list = await t.http().get('/v1/profiles').set(scoped.auth).expect(200);
      expect(list.body.profiles.map((p: { id: string }) => p.id)).toEqual([tenant.profileId]);
      expect(list.body.total).toBe(1);
      expectError(
        await t.http().patch(`/v1/profiles/${extra.id}`).set(scoped.auth).send({ name: 'x' }),
        403,
        'profile_not_accessible',
      );
      expectError(await t.http().delete(`/v1/profiles/${extra.id}`).set(scoped.auth), 403, 'profile_not_accessible');
      await t.http().delete(`/v1/profiles/${extra.id}`).set(tenant.auth).expect(200);
    });

    it('should validate profile bodies, naming the field', async () => {
      expect(
        expectError(await t.http().post('/v1/profiles').set(tenant.auth).send({ name: '' }), 400, 'invalid_request')
          .details,
      ).toEqual({ field: 'name' });
      expect(
        expectError(
          await t.http().patch(`/v1/profiles/${tenant.profileId}`).set(tenant.auth).send({ description: 5 }),
          400,
          'invalid_request',
        ).message,
      ).toBe('description must be a string');
    });
  });

  describe('plans and entitlements', () => {
    it('should answer 403 plan_limit with entitlement, usage and limit when the profile quota is used up', async () => {
      const trial = await createTenant(t, { plan: 'trial' });
      await t.http().post('/v1/profiles').set(trial.auth).send({ name: 'Second' }).expect(201);
      const error = expectError(
        await t.http().post('/v1/profiles').set(trial.auth).send({ name: 'Third' }),
        403,
        'plan_limit',
      );
      expect(error.details).toEqual({ entitlement: 'profiles', usage: 2, limit: 2 });

      const starter = await createTenant(t, { plan: 'starter' });
      for (let i = 0; i < 4; i++)
        await t
          .http()
          .post('/v1/profiles')
          .set(starter.auth)
          .send({ name: `P${i}` })
          .expect(201);
      expect(
        expectError(await t.http().post('/v1/profiles').set(starter.auth).send({ name: 'P5' }), 403, 'plan_limit')
          .details,
      ).toEqual({ entitlement: 'profiles', usage: 5, limit: 5 });

      const enterprise = await createTenant(t, { plan: 'enterprise' });
      for (let i = 0; i < 6; i++)
        await t
          .http()
          .post('/v1/profiles')
          .set(enterprise.auth)
          .send({ name: `E${i}` })
          .expect(201);
    });

    it('should free quota when a profile is deleted', async () => {
      const trial = await createTenant(t, { plan: 'trial' });
      const p = (await t.http().post('/v1/profiles').set(trial.auth).send({ name: 'Second' }).expect(201)).body.profile;
      await t.http().post('/v1/profiles').set(trial.auth).send({ name: 'Third' }).expect(403);
      await t.http().delete(`/v1/profiles/${p.id}`).set(trial.auth).expect(200);
      await t.http().post('/v1/profiles').set(trial.auth).send({ name: 'Third' }).expect(201);
    });

    it('should answer 402 trial_expired on writes once the trial has ended, and keep reads working', async () => {
      const trial = await createTenant(t, { plan: 'trial' });
      await t
        .http()
        .put('/v1/policy')
        .set(trial.auth)
        .send({ blockedTerms: ['a'] })
        .expect(200);
      await t.ds.query(`UPDATE workspaces SET trial_ends_at = now() - interval '1 minute' WHERE id = $1`, [
        trial.workspaceId,
      ]);
      await authChanged(t, `workspace:${trial.workspaceId}`);
      expectError(await t.http().post('/v1/profiles').set(trial.auth).send({ name: 'Late' }), 402, 'trial_expired');
      expectError(
        await t
          .http()
          .put('/v1/policy')
          .set(trial.auth)
          .send({ blockedTerms: ['b'] }),
        402,
        'trial_expired',
      );
      expectError(await t.http().post('/v1/api-keys').set(trial.auth).send({ name: 'k' }), 402, 'trial_expired');
      expectError(await t.http().delete(`/v1/profiles/${trial.profileId}`).set(trial.auth), 402, 'trial_expired');
      await t.http().get('/v1/profile').set(trial.auth).expect(200);
      await t.http().get('/v1/policy').set(trial.auth).expect(200);
      // Choosing a plan lifts it.
      await t.ds.query(`UPDATE workspaces SET plan = 'pro', trial_ends_at = NULL WHERE id = $1`, [trial.workspaceId]);
      await authChanged(t, `workspace:${trial.workspaceId}`);
      await t.http().post('/v1/profiles').set(trial.auth).send({ name: 'Paid' }).expect(201);
    });
  });

  describe('API keys', () => {
    let tenant: Tenant;
    beforeAll(async () => {
      tenant = await createTenant(t);
    });

    it('should create a key returning { apiKey, secret } once, usable at once, with defaults from the creator', async () => {
      const res = await t
        .http()
        .post('/v1/api-keys')
        .set(tenant.auth)
        .send({ name: 'CI', maxPostsPerDay: 10, rateLimitPerMinute: 30 })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual(['apiKey', 'secret']);
      expect(res.body.secret).toMatch(/^svc_live_[0-9A-Za-z]{40}$/);
      expect(res.body.apiKey).toMatchObject({
        name: 'CI',
        permissions: ['*'],
        profileIds: null,
        accountIds: null,
        homeProfileId: tenant.profileId,
        ownerUserId: tenant.userId,
        expiresAt: null,
        maxPostsPerDay: 10,
        rateLimitPerMinute: 30,
        revokedAt: null,
        prefix: res.body.secret.slice(0, 15),
      });
      const me = await t.http().get('/v1/profile').set('Authorization', `Bearer ${res.body.secret}`).expect(200);
      expect(me.headers['ratelimit-limit']).toBe('30');
      const listed = await t.http().get('/v1/api-keys').set(tenant.auth).expect(200);
      expect(listed.body).toMatchObject({ page: 1, limit: 20, hasMore: false });
      expect(listed.body.total).toBe(listed.body.apiKeys.length);
      expect(JSON.stringify(listed.body)).not.toContain(res.body.secret);
      const events = (await t.http().get('/v1/events?type=api_key.created').set(tenant.auth).expect(200)).body.events;
      expect(events[0].data.apiKey.id).toBe(res.body.apiKey.id);
      expect(JSON.stringify(events)).not.toContain(res.body.secret);
    });

    it('should only create keys within its own permissions: 403 insufficient_permission naming the missing one', async () => {
      const limited = await createKey(t, tenant, { permissions: ['keys:write', 'keys:read', 'profiles:read'] });
      const child = await t
        .http()
        .post('/v1/api-keys')
        .set(limited.auth)
        .send({ name: 'child', permissions: ['profiles:read'] })
        .expect(201);
      expect(child.body.apiKey.permissions).toEqual(['profiles:read']);
      const inherited = await t.http().post('/v1/api-keys').set(limited.auth).send({ name: 'inherits' }).expect(201);
      expect(inherited.body.apiKey.permissions).toEqual(['keys:write', 'keys:read', 'profiles:read']);
      expect(
        expectError(
          await t
            .http()
            .post('/v1/api-keys')
            .set(limited.auth)
            .send({ name: 'x', permissions: ['profiles:read', 'posts:write'] }),
          403,
          'insufficient_permission',
        ).details,
      ).toEqual({ required: 'posts:write' });
      expect(
        expectError(
          await t
            .http()
            .post('/v1/api-keys')
            .set(limited.auth)
            .send({ name: 'x', permissions: ['*'] }),
          403,
          'insufficient_permission',
        ).details,
      ).toEqual({ required: '*' });
      const unknown = expectError(
        await t
          .http()
          .post('/v1/api-keys')
          .set(tenant.auth)
          .send({ name: 'x', permissions: ['posts:delete'] }),
        400,
        'invalid_request',
      );
      expect(unknown.details).toEqual({ field: 'permissions' });
      expect(unknown.message).toContain('posts:delete');
    });

    it('should only create keys within its own scope (profiles, accounts, rate limit)', async () => {
      const second = (await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Second' }).expect(201)).body
        .profile.id;
      const scoped = await createKey(t, tenant, {
        profileIds: [tenant.profileId],
        permissions: ['keys:write', 'keys:read'],
        rateLimitPerMinute: 20,
      });
      const child = await t.http().post('/v1/api-keys').set(scoped.auth).send({ name: 'child' }).expect(201);
      expect(child.body.apiKey.profileIds).toEqual([tenant.profileId]);
      expectError(
        await t
          .http()
          .post('/v1/api-keys')
          .set(scoped.auth)
          .send({ name: 'x', profileIds: [second] }),
        403,
        'profile_not_accessible',
      );
      expectError(
        await t
          .http()
          .post('/v1/api-keys')
          .set(scoped.auth)
          .send({ name: 'x', profileIds: [tenant.profileId, second] }),
        403,
        'profile_not_accessible',
      );
      expect(
        expectError(
          await t.http().post('/v1/api-keys').set(scoped.auth).send({ name: 'x', rateLimitPerMinute: 21 }),
          400,
          'invalid_request',
        ).details,
      ).toEqual({ field: 'rateLimitPerMinute' });
      await t.http().post('/v1/api-keys').set(scoped.auth).send({ name: 'x', rateLimitPerMinute: 20 }).expect(201);

      const { id: a1 } = await insertAccount(t, tenant, 'facebook');
      const { id: a2 } = await insertAccount(t, tenant, 'facebook');
      const accountBound = await createKey(t, tenant, { accountIds: [a1], permissions: ['keys:write'] });
      const narrowed = await t.http().post('/v1/api-keys').set(accountBound.auth).send({ name: 'child' }).expect(201);
      expect(narrowed.body.apiKey.accountIds).toEqual([a1]);
      expectError(
        await t
          .http()
          .post('/v1/api-keys')
          .set(accountBound.auth)
          .send({ name: 'x', accountIds: [a2] }),
        403,
        'account_not_allowed',
      );
    });

    it('should validate key bodies (expiry in the future, home inside the scope, owner in the workspace)', async () => {
      const other = await createTenant(t);
      expect(
        expectError(
          await t.http().post('/v1/api-keys').set(tenant.auth).send({ name: 'x', expiresAt: '2001-01-01T00:00:00Z' }),
          400,
          'invalid_request',
        ).details,
      ).toEqual({ field: 'expiresAt' });
      expect(
        expectError(
          await t.http().post('/v1/api-keys').set(tenant.auth).send({ name: 'x', expiresAt: 'tomorrow' }),
          400,
          'invalid_request',
        ).message,
      ).toMatch(/^expiresAt/);
      expect(
        expectError(
          await t.http().post('/v1/api-keys').set(tenant.auth).send({ name: 'x', ownerUserId: other.userId }),
          400,
          'invalid_request',
        ).details,
      ).toEqual({ field: 'ownerUserId' });
      expectError(
        await t.http().post('/v1/api-keys').set(tenant.auth).send({ name: 'x', homeProfileId: other.profileId }),
        403,
        'profile_not_accessible',
      );
      expectError(
        await t
          .http()
          .post('/v1/api-keys')
          .set(tenant.auth)
          .send({ name: 'x', profileIds: [UNKNOWN] }),
        403,
        'profile_not_accessible',
      );
      expect(
        expectError(
          await t.http().post('/v1/api-keys').set(tenant.auth).send({ name: 'x', maxPostsPerDay: 0 }),
          400,
          'invalid_request',
        ).details,
      ).toEqual({ field: 'maxPostsPerDay' });
      expect(
        expectError(
          await t
            .http()
            .post('/v1/api-keys')
            .set(tenant.auth)
            .send({ permissions: ['*'] }),
          400,
          'invalid_request',
        ).message,
      ).toBe('name is required');
    });

    it('should revoke a key (401 afterwards), idempotently, and answer 404 for keys outside reach', async () => {
      const key = await createKey(t, tenant, { name: 'bye' });
      const res = await t.http().delete(`/v1/api-keys/${key.id}`).set(tenant.auth).expect(200);
      expect(res.body).toEqual({ id: key.id, revoked: true, revokedAt: expect.any(String) });
      expectError(await t.http().get('/v1/profile').set(key.auth), 401, 'invalid_api_key');
      const again = await t.http().delete(`/v1/api-keys/${key.id}`).set(tenant.auth).expect(200);
      expect(again.body.revokedAt).toBe(res.body.revokedAt);
      expectError(await t.http().delete(`/v1/api-keys/${UNKNOWN}`).set(tenant.auth), 404, 'not_found');
      expectError(await t.http().delete('/v1/api-keys/nope').set(tenant.auth), 404, 'not_found');

      // A key restricted to profiles reaches only keys inside its scope.
      const scoped = await createKey(t, tenant, {
        profileIds: [tenant.profileId],
        permissions: ['keys:read', 'keys:write'],
      });
      const unrestricted = await createKey(t, tenant, { name: 'workspace-wide' });
      expectError(await t.http().delete(`/v1/api-keys/${unrestricted.id}`).set(scoped.auth), 404, 'not_found');
      const visible = (await t.http().get('/v1/api-keys?limit=100').set(scoped.auth).expect(200)).body.apiKeys.map(
        (k: { id: string }) => k.id,
      );
      expect(visible).toContain(scoped.id);
      expect(visible).not.toContain(unrestricted.id);
      await t.http().get('/v1/profile').set(unrestricted.auth).expect(200);
    });
  });

  describe('policy', () => {
    let tenant: Tenant;
    beforeAll(async () => {
      tenant = await createTenant(t);
    });

    it('should answer the default policy, then update only the fields given', async () => {
      const initial = await t.http().get('/v1/policy').set(tenant.auth).expect(200);
      expect(initial.body).toEqual({
        policy: {
          profileId: tenant.profileId,
          allowedPlatforms: null,
          requireApproval: false,
          approverUserIds: [],
          blockedTerms: [],
          maxScheduleDaysAhead: null,
          updatedAt: null,
        },
      });
      const put = await t
        .http()
        .put('/v1/policy')
        .set(tenant.auth)
        .send({
          allowedPlatforms: ['facebook', 'linkedin'],
          requireApproval: true,
          approverUserIds: [tenant.userId],
          maxScheduleDaysAhead: 30,
        })
        .expect(200);
      expect(put.body.policy).toMatchObject({
        allowedPlatforms: ['facebook', 'linkedin'],
        requireApproval: true,
        approverUserIds: [tenant.userId],
        blockedTerms: [],
        maxScheduleDaysAhead: 30,
        updatedAt: expect.any(String),
      });
      const partial = await t
        .http()
        .put('/v1/policy')
        .set(tenant.auth)
        .send({ blockedTerms: ['casino'], allowedPlatforms: null })
        .expect(200);
      expect(partial.body.policy).toMatchObject({
        allowedPlatforms: null,
        requireApproval: true,
        blockedTerms: ['casino'],
        maxScheduleDaysAhead: 30,
      });
      expect((await t.http().get('/v1/policy').set(tenant.auth).expect(200)).body).toEqual(partial.body);
      const events = (await t.http().get('/v1/events?type=policy.updated').set(tenant.auth).expect(200)).body;
      expect(events.total).toBe(2);
      expect(events.events[0].data.policy.blockedTerms).toEqual(['casino']);
    });

    it('should validate the policy, naming the field', async () => {
      const other = await createTenant(t);
      expect(
        expectError(
          await t
            .http()
            .put('/v1/policy')
            .set(tenant.auth)
            .send({ allowedPlatforms: ['myspace'] }),
          400,
          'invalid_request',
        ).details,
      ).toEqual({ field: 'allowedPlatforms' });
      expect(
        expectError(
          await t.http().put('/v1/policy').set(tenant.auth).send({ requireApproval: 'yes' }),
          400,
          'invalid_request',
        ).message,
      ).toBe('requireApproval must be a boolean value');
      expect(
        expectError(
          await t.http().put('/v1/policy').set(tenant.auth).send({ maxScheduleDaysAhead: 0 }),
          400,
          'invalid_request',
        ).details,
      ).toEqual({ field: 'maxScheduleDaysAhead' });
      const foreign = expectError(
        await t
          .http()
          .put('/v1/policy')
          .set(tenant.auth)
          .send({ approverUserIds: [other.userId] }),
        400,
        'invalid_request',
      );
      expect(foreign.details).toEqual({ field: 'approverUserIds' });
    });
  });

  describe('isolation between workspaces', () => {
    it('should never show one workspace anything of another', async () => {
      const a = await createTenant(t);
      const b = await createTenant(t);
      await t.http().post('/v1/profiles').set(a.auth).send({ name: 'A-only' }).expect(201);
      await t
        .http()
        .put('/v1/policy')
        .set(a.auth)
        .send({ blockedTerms: ['a-secret'] })
        .expect(200);
      const aKey = await createKey(t, a, { name: 'a-key' });

      const profiles = (await t.http().get('/v1/profiles?limit=100').set(b.auth).expect(200)).body;
      expect(profiles.total).toBe(1);
      expect(profiles.profiles.map((p: { id: string }) => p.id)).toEqual([b.profileId]);
      const keys = (await t.http().get('/v1/api-keys?limit=100').set(b.auth).expect(200)).body.apiKeys.map(
        (k: { id: string }) => k.id,
      );
      expect(keys).toEqual([b.keyId]);
      expect(keys).not.toContain(aKey.id);
      expect((await t.http().get('/v1/policy').set(b.auth).expect(200)).body.policy.blockedTerms).toEqual([]);
      const events = (await t.http().get('/v1/events?limit=100').set(b.auth).expect(200)).body.events;
      expect(JSON.stringify(events)).not.toContain(a.workspaceId);
      expect(events.every((e: { data: { profileId?: string } }) => e.data.profileId === b.profileId)).toBe(true);
      expectError(await t.http().get(`/v1/events?profileId=${a.profileId}`).set(b.auth), 403, 'profile_not_accessible');
      expectError(await t.http().get(`/v1/logs?profileId=${a.profileId}`).set(b.auth), 403, 'profile_not_accessible');
    });
  });
});
