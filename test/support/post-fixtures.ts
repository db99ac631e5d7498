import { randomBytes } from 'node:crypto';
import type { SocialAccountEntity } from '@/modules/accounts/entities/social-account.entity';
import type { PlatformName } from '@/modules/networks/platform-name';
import type { Tenant, TestApp } from './test-app';

export interface TestAccount {
  id: string;
  platform: PlatformName;
  name: string;
}

/** A connected account row, inserted directly (the connect flow is tested elsewhere). */
export async function connectAccount(
  t: TestApp,
  tenant: Pick<Tenant, 'workspaceId' | 'profileId'>,
  platform: PlatformName,
  o: { status?: SocialAccountEntity['status']; name?: string; profileId?: string } = {},
): Promise<TestAccount> {
  const pageId = `${platform}_${randomBytes(6).toString('hex')}`;
  const name = o.name ?? `${platform} page ${pageId.slice(-4)}`;
  // Plain SQL with the columns these tests need: other columns keep their defaults.
  const [row] = await t.ds.query<{ id: string }[]>(
    `INSERT INTO social_accounts (workspace_id, profile_id, platform, platform_account_id, name, status, connected_at) VALUES ($1, $2, $3, $4, $5, $6, now()) RETURNING id`,
    [tenant.workspaceId, o.profileId ?? tenant.profileId, platform, pageId, name, o.status ?? 'active'],
  );
  return { id: row.id, platform, name };
}

/** Another key of the tenant's workspace, made through the API; `owner: null` strips its owner. */
export async function createKey(
  t: TestApp,
  tenant: Tenant,
  body: Record<string, unknown> = {},
  o: { owner?: string | null } = {},
): Promise<{ id: string; auth: { Authorization: string } }> {
  const res = await t
    .http()
    .post('/v1/api-keys')
    .set(tenant.auth)
    .send({ name: 'test key', rateLimitPerMinute: 10000, ...body })
    .expect(201);
  const id = (res.body as { apiKey: { id: string } }).apiKey.id;
  if (o.owner !== undefined) await t.ds.query('UPDATE api_keys SET owner_user_id = $2 WHERE id = $1', [id, o.owner]);
  return { id, auth: { Authorization: `Bearer ${(res.body as { secret: string }).secret}` } };
}

/** POST /v1/posts with `auth`: the request, to await (or `.expect(…)`) like any other. */
export function createPost(t: TestApp, auth: Record<string, string>, body: object) {
  return t.http().post('/v1/posts').set(auth).send(body);
}

/** A post created to go out now (`publishNow: true`), answered 201: its id. */
export async function publishPost(
  t: TestApp,
  auth: Record<string, string>,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await createPost(t, auth, { ...body, publishNow: true }).expect(201);
  return (res.body as { id: string }).id;
}

/** A second human of the tenant's workspace. */
export async function addUser(t: TestApp, tenant: Pick<Tenant, 'workspaceId'>): Promise<string> {
  const [row] = await t.ds.query<{ id: string }[]>(
    `INSERT INTO users (workspace_id, email, role) VALUES ($1, $2, 'member') RETURNING id`,
    [tenant.workspaceId, `user-${randomBytes(4).toString('hex')}@example.com`],
  );
  return row.id;
}

export async function setPolicy(t: TestApp, tenant: Tenant, policy: Record<string, unknown>): Promise<void> {
  await t.http().put('/v1/policy').set(tenant.auth).send(policy).expect(200);
}

/** The types of the outbox/audit rows written for a post, sorted by name. */
export async function eventTypesOf(t: TestApp, postId: string): Promise<string[]> {
  const rows = await t.ds.query<
    {
      type: string;
    }[]
  >(`SELECT type FROM events WHERE data->>'postId' = $1 ORDER BY type`, [postId]);
  return rows.map((r) => r.type);
}

export function inFuture(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

/** A YouTube-ready video content (video + title). */
export const VIDEO_CONTENT = {
  caption: 'A clip',
  videoUrl: 'https://cdn.example.com/clip.mp4',
  youtube: { title: 'A clip' },
};
