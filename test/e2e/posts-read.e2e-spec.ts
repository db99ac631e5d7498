import { VIDEO_CONTENT } from '@test/support/post-fixtures';
import { createApiApp, createTenant, Tenant, TestApp } from '@test/support/test-app';
import { insertAccount, InsertedAccount } from '@test/support/publishing';

describe('reading posts', () => {
  let t: TestApp;
  let tenant: Tenant;
  let fb: InsertedAccount;
  let yt: InsertedAccount;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ({ t, tenant } = await createApiApp());
    fb = await insertAccount(t, tenant, 'facebook');
    yt = await insertAccount(t, tenant, 'youtube');
    const create = async (name: string, body: object) => {
      ids[name] = (await t.http().post('/v1/posts').set(tenant.auth).send(body).expect(201)).body.id as string;
    };
    await create('text', { content: { message: 'Text post', caption: 'cap' }, targetIds: [fb.id] });
    await create('image', {
      content: { message: 'Image post', imageUrls: ['https://cdn.example.com/a.png'] },
      targetIds: [fb.id],
    });
    await create('video', {
      content: { ...VIDEO_CONTENT, perAccount: { [yt.id]: { caption: 'Own caption' } } },
      targetIds: [fb.id, yt.id],
      saveAsDraft: false,
    });
    for (let i = 0; i < 4; i++) await create(`extra${i}`, { content: `Extra ${i}`, accountIds: [fb.id] });
  });
  afterAll(async () => t.close());

  const list = (query: string) => t.http().get(`/v1/posts${query}`).set(tenant.auth).expect(200);

  it('should list the profile posts newest first with their targets', async () => {
    const res = await list('');
    expect(res.body).toMatchObject({ page: 1, limit: 20, total: 7, hasMore: false });
    expect(res.body.posts[0].id).toBe(ids.extra3);
    const video = (res.body.posts as { id: string; targets: unknown[] }[]).find((p) => p.id === ids.video)!;
    expect(video.targets).toHaveLength(2);
    expect(Object.keys(res.body.posts[0]).sort()).toEqual([
      'caption',
      'contentType',
      'createdAt',
      'id',
      'message',
      'scheduledAt',
      'state',
      'targets',
    ]);
  });

  it('should filter by state, contentType and platform', async () => {
    expect((await list('?state=queued')).body.posts.map((p: { id: string }) => p.id)).toEqual([ids.video]);
    expect((await list('?contentType=image')).body.posts.map((p: { id: string }) => p.id)).toEqual([ids.image]);
    expect((await list('?platform=youtube')).body.posts.map((p: { id: string }) => p.id)).toEqual([ids.video]);
    expect((await list('?platform=facebook&contentType=text')).body.total).toBe(5);
    expect((await list('?platform=linkedin')).body).toMatchObject({ posts: [], total: 0, hasMore: false });
  });

  it('should paginate with page and limit and clamp limit to 100', async () => {
    const first = await list('?limit=3');
    expect(first.body).toMatchObject({ page: 1, limit: 3, total: 7, hasMore: true });
    const third = await list('?limit=3&page=3');
    expect(third.body).toMatchObject({ page: 3, limit: 3, total: 7, hasMore: false });
    expect(third.body.posts).toHaveLength(1);
    const all = [...first.body.posts, ...(await list('?limit=3&page=2')).body.posts, ...third.body.posts].map(
      (p: { id: string }) => p.id,
    );
    expect(new Set(all).size).toBe(7);
    expect((await list('?limit=500')).body.limit).toBe(100);
  });

  it('should answer invalid_request for a bad filter', async () => {
    const res = await t.http().get('/v1/posts?state=lost').set(tenant.auth).expect(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: { field: 'state' } });
    await t.http().get('/v1/posts?page=0').set(tenant.auth).expect(400);
  });

  it('should read one post with its full content and targets', async () => {
    const res = await t.http().get(`/v1/posts/${ids.video}`).set(tenant.auth).expect(200);
    expect(res.body.post).toMatchObject({
      id: ids.video,
      state: 'queued',
      contentType: 'video',
      caption: 'A clip',
      message: null,
      scheduledAt: null,
      createdAt: expect.any(String),
    });
    expect(res.body.post.content).toEqual({
      contentType: 'video',
      message: null,
      caption: 'A clip',
      link: null,
      firstComment: null,
      imageUrls: [],
      videoUrl: VIDEO_CONTENT.videoUrl,
      platformCaptions: {},
      perAccount: { [yt.id]: { caption: 'Own caption' } },
      youtube: { title: 'A clip' },
    });
    expect(res.body.post.targets).toEqual([
      {
        id: expect.any(String),
        accountId: fb.id,
        platform: 'facebook',
        pageName: fb.name,
        status: 'pending',
        externalId: null,
        url: null,
        error: null,
        errorCategory: null,
        firstComment: null,
        publishedAt: null,
      },
      expect.objectContaining({ accountId: yt.id, platform: 'youtube', pageName: yt.name }),
    ]);
  });

  it('should show the history of a post', async () => {
    const res = await t.http().get(`/v1/posts/${ids.video}/history`).set(tenant.auth).expect(200);
    expect(res.body.history).toEqual([
      {
        from: null,
        to: 'queued',
        at: expect.any(String),
        reason: expect.any(String),
        actor: { type: 'api_key', id: tenant.keyId, userId: tenant.userId },
      },
    ]);
  });

  it('should not return a post of another profile', async () => {
    const other = await createTenant(t);
    for (const path of [`/v1/posts/${ids.text}`, `/v1/posts/${ids.text}/history`]) {
      const res = await t.http().get(path).set(other.auth).expect(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await t.http().get('/v1/posts').set(other.auth).expect(200)).body.total).toBe(0);
    await t
      .http()
      .put(`/v1/posts/${ids.text}`)
      .set(other.auth)
      .send({ content: { message: 'hijack' } })
      .expect(404);
    await t.http().delete(`/v1/posts/${ids.video}`).set(other.auth).expect(404);
    for (const action of ['publish', 'retry', 'approve', 'reject'])
      await t.http().post(`/v1/posts/${ids.text}/${action}`).set(other.auth).expect(404);
    // A second profile of the same workspace is another profile too.
    const second = await t.http().post('/v1/profiles').set(tenant.auth).send({ name: 'Second' }).expect(201);
    await t.http().get(`/v1/posts/${ids.text}?profileId=${second.body.profile.id}`).set(tenant.auth).expect(404);
    await t.http().get('/v1/posts/not-a-uuid').set(tenant.auth).expect(404);
  });
});
