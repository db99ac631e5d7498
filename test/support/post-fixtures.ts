import { randomBytes } from 'node:crypto';
import type { Tenant, TestApp } from './test-app';

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
