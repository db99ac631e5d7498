import { CommentsSyncService } from '@/modules/comments/comments-sync.service';
import type { PlatformName } from '@/modules/networks/platform-name';
import { itemComments } from '@/modules/networks/kit/sandbox/sandbox-metrics';
import { connectThroughSandbox } from '@test/support/connect-flow';
import { publishPost } from '@test/support/post-fixtures';
import { accountsOf, targetsOf, waitForFinal } from '@test/support/publishing';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';
import { createKey } from '@test/support/e2e-helpers';

interface Account {
  id: string;
  platform: PlatformName;
}

interface Comment {
  id: string;
  accountId: string;
  postId: string;
  platform: string;
  externalId: string;
  externalPostId: string;
  authorName: string;
  text: string;
  createdAt: string;
}

interface Published {
  postId: string;
  account: Account;
  externalId: string;
  publishedAt: string;
}

describe('comments (sandbox networks)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let fb: Account;
  let ig: Account;
  let fbQuiet: Account;
  let threads: Account;
  const published: Published[] = [];

  async function connect(platform: PlatformName, commentSync: boolean): Promise<Account> {
    const before = new Set((await accountsOf(t, tenant.profileId)).map((a) => a.id));
    await connectThroughSandbox(t, tenant, platform);
    const added = (await accountsOf(t, tenant.profileId)).find((a) => !before.has(a.id));
    if (!added) throw new Error(`connecting ${platform} added no account`);
    if (commentSync)
      await t.http().patch(`/v1/accounts/${added.id}`).set(tenant.auth).send({ commentSync: true }).expect(200);
    return { id: added.id, platform: added.platform };
  }

  async function publish(accounts: Account[], extra: Record<string, unknown> = {}): Promise<void> {
    const postId = await publishPost(t, tenant.auth, {
      content: `Comments test ${Date.now()}`,
      accountIds: accounts.map((a) => a.id),
      ...extra,
    });
    expect(await waitForFinal(t, postId)).toBe('published');
    for (const target of await targetsOf(t, postId)) {
      published.push({
        postId,
        account: accounts.find((a) => a.id === target.accountId)!,
        externalId: target.externalId!,
        publishedAt: target.publishedAt!.toISOString(),
      });
    }
  }

  /** Every page, following nextCursor until it is null. */
  async function listAll(
    query: Record<string, string | number>,
    who: Tenant = tenant,
  ): Promise<{ comments: Comment[]; pages: number }> {
    const comments: Comment[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await t
        .http()
        .get('/v1/comments')
        .query({ ...query, ...(cursor ? { cursor } : {}) })
        .set(who.auth)
        .expect(200);
      comments.push(...(res.body.comments as Comment[]));
      cursor = res.body.nextCursor as string | null;
      pages += 1;
    } while (cursor && pages < 100);
    return { comments, pages };
  }

  const receivedEvents = async (): Promise<{ data: { comment: Comment } }[]> =>
    t.ds.query(`SELECT data FROM events WHERE profile_id = $1 AND type = 'comment.received' ORDER BY created_at`, [
      tenant.profileId,
    ]);

  beforeAll(async () => {
    t = await createTestApp();
    tenant = await createTenant(t);
    other = await createTenant(t);
    fb = await connect('facebook', true);
    ig = await connect('instagram', true);
    fbQuiet = await connect('facebook', false);
    threads = await connect('threads', true);
    await publish([fb, fbQuiet, threads]);
    await publish([fb]);
    await publish([ig], {
      content: `Comments test image ${Date.now()}`,
      mediaUrls: [`${t.url}/sandbox/_control/media/image.jpg`],
    });
  });
  afterAll(async () => t.close());

  /** The sandbox's comments of the items of synced facebook/instagram accounts. */
  const expected = () =>
    published
      .filter((p) => p.account.id === fb.id || p.account.id === ig.id)
      .flatMap((p) =>
        itemComments(p.externalId, p.publishedAt).map((c) => ({
          ...c,
          // Instagram names the author by username.
          authorName:
            p.account.platform === 'instagram' ? c.authorName.toLowerCase().replace(/[^a-z]+/g, '.') : c.authorName,
          postId: p.postId,
          accountId: p.account.id,
          externalPostId: p.externalId,
        })),
      );

  it('should store the comments of synced facebook and instagram accounts once, with one comment.received event each', async () => {
    const sync = t.app.get(CommentsSyncService);
    const want = expected();
    expect(want.length).toBeGreaterThanOrEqual(9);

    const first = await sync.syncAll();
    expect(first.failed).toBe(0);
    const stored = await t.ds.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM comments WHERE profile_id = $1`, [
      tenant.profileId,
    ]);
    expect(stored[0].n).toBe(want.length);
    const events = await receivedEvents();
    expect(events).toHaveLength(want.length);
    expect(new Set(events.map((e) => e.data.comment.externalId))).toEqual(new Set(want.map((c) => c.id)));

    const second = await sync.syncAll();
    expect(second.stored).toBe(0);
    expect(await receivedEvents()).toHaveLength(want.length);
  });

  it('should list every stored comment oldest first across pages until nextCursor is null', async () => {
    const want = expected();
    const { comments, pages } = await listAll({ limit: 2 });
    expect(pages).toBe(Math.ceil(want.length / 2));
    expect(comments).toHaveLength(want.length);
    expect(new Set(comments.map((c) => c.id)).size).toBe(want.length);
    const sorted = [...comments].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    expect(comments).toEqual(sorted);
    const byExternal = new Map(comments.map((c) => [c.externalId, c]));
    for (const w of want) {
      expect(byExternal.get(w.id)).toMatchObject({
        accountId: w.accountId,
        postId: w.postId,
        externalPostId: w.externalPostId,
        authorName: w.authorName,
        text: w.text,
      });
    }
    expect(comments.every((c) => c.platform === 'facebook' || c.platform === 'instagram')).toBe(true);
    const one = await t.http().get('/v1/comments').set(tenant.auth).expect(200);
    expect(one.body.comments).toHaveLength(Math.min(20, want.length));
  });

  it('should filter by accountId and postId, and not sync accounts without commentSync or networks without comments', async () => {
    const want = expected();
    const ofIg = await listAll({ accountId: ig.id, limit: 3 });
    expect(ofIg.comments.map((c) => c.externalId).sort()).toEqual(
      want
        .filter((c) => c.accountId === ig.id)
        .map((c) => c.id)
        .sort(),
    );
    const firstPost = published[0].postId;
    const ofPost = await listAll({ postId: firstPost, limit: 100 });
    expect(ofPost.comments.map((c) => c.externalId).sort()).toEqual(
      want
        .filter((c) => c.postId === firstPost)
        .map((c) => c.id)
        .sort(),
    );
    expect((await listAll({ accountId: fbQuiet.id })).comments).toEqual([]);
    expect((await listAll({ accountId: threads.id })).comments).toEqual([]);
  });

  it('should refuse a bad cursor or limit, clamp limit to 100, and show nothing of another profile', async () => {
    expect(
      (await t.http().get('/v1/comments').query({ cursor: 'garbage' }).set(tenant.auth).expect(400)).body.error.details
        .field,
    ).toBe('cursor');
    expect(
      (await t.http().get('/v1/comments').query({ limit: 0 }).set(tenant.auth).expect(400)).body.error.details.field,
    ).toBe('limit');
    expect(
      (await t.http().get('/v1/comments').query({ accountId: 'x' }).set(tenant.auth).expect(400)).body.error.details
        .field,
    ).toBe('accountId');
    const big = await t.http().get('/v1/comments').query({ limit: 1000 }).set(tenant.auth).expect(200);
    expect(big.body.comments).toHaveLength(expected().length);
    expect(big.body.nextCursor).toBeNull();
    expect((await t.http().get('/v1/comments').set(other.auth).expect(200)).body).toEqual({
      comments: [],
      nextCursor: null,
    });
    expect(
      (await t.http().get('/v1/comments').query({ accountId: fb.id }).set(other.auth).expect(200)).body.comments,
    ).toEqual([]);
  });

  it('should need comments:read, and keep a key restricted to accounts to those accounts', async () => {
    const noComments = await createKey(t, tenant, { permissions: ['posts:read'] });
    const denied = await t.http().get('/v1/comments').set(noComments.auth).expect(403);
    expect(denied.body.error).toMatchObject({
      code: 'insufficient_permission',
      details: { required: 'comments:read' },
    });
    const onlyIg = await createKey(t, tenant, { permissions: ['comments:read'], accountIds: [ig.id] });
    const seen = (await t.http().get('/v1/comments').query({ limit: 100 }).set(onlyIg.auth).expect(200)).body
      .comments as Comment[];
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((c) => c.accountId === ig.id)).toBe(true);
    await t.http().get('/v1/comments').query({ accountId: fb.id }).set(onlyIg.auth).expect(404);
  });
});
