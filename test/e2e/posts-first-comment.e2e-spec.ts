import { AccountCredentialsService } from '@/modules/accounts/account-credentials.service';
import { ownComments } from '@/modules/networks/kit/sandbox/sandbox-comments';
import { SandboxStore } from '@/modules/networks/kit/sandbox/sandbox-store';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { PlatformName } from '@/modules/networks/platform-name';
import { PostTargetEntity } from '@/modules/posts/entities/post-target.entity';
import { INTERRUPTED_COMMENT } from '@/modules/posts/publishing/first-comment';
import { PublishPostProcessor } from '@/modules/posts/publishing/publish-post.processor';
import { TargetPublisher } from '@/modules/posts/publishing/target-publisher';
import { connectNewAccount, SandboxAccount } from '@test/support/connect-flow';
import { createPost, publishPost } from '@test/support/post-fixtures';
import { insertAccount, insertPost, postEvents, sandboxItems, targetsOf, waitForFinal } from '@test/support/publishing';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

type Account = SandboxAccount;

/** A post's first comment: posted by each account once its item is out, at most once, never failing the target. */
describe('first comment (sandbox networks)', () => {
  let t: TestApp;
  let tenant: Tenant;
  const acc = {} as Record<PlatformName, Account>;
  let seq = 0;
  const media = (name: string): string => `${t.url}/sandbox/_control/media/${name}`;
  const text = (words = ''): string => `First comment test ${++seq} ${Date.now()} ${words}`.trim();

  const commentsOn = (platform: PlatformName, itemId: string) => ownComments(t.app.get(SandboxStore), platform, itemId);

  beforeAll(async () => {
    t = await createTestApp();
    t.app.get(TargetPublisher).setRetryPolicy({ baseDelayMs: 50, maxDelayMs: 200 });
    tenant = await createTenant(t);
    for (const p of ['facebook', 'instagram', 'linkedin', 'threads', 'youtube', 'tiktok'] as PlatformName[])
      acc[p] = await connectNewAccount(t, tenant, p);
  });
  afterAll(async () => t.close());

  describe('validation', () => {
    it('should answer 400 naming the TikTok account when a first comment would go to it', async () => {
      const res = await createPost(t, tenant.auth, {
        content: 'Hello',
        mediaUrls: [media('video.mp4')],
        accountIds: [acc.tiktok.id],
        firstComment: 'Link in bio',
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details.field).toBe('firstComment');
      expect(res.body.error.message).toContain(acc.tiktok.id);
      expect(res.body.error.details.errors).toEqual([
        expect.objectContaining({ accountId: acc.tiktok.id, platform: 'tiktok', field: 'firstComment' }),
      ]);
    });

    it('should name the per-account override in validate and in a bulk dry run', async () => {
      const body = {
        content: {
          message: 'Hello',
          videoUrl: media('video.mp4'),
          perAccount: { [acc.tiktok.id]: { firstComment: 'x' } },
        },
        accountIds: [acc.tiktok.id],
      };
      const field = `content.perAccount.${acc.tiktok.id}.firstComment`;
      const validate = await t.http().post('/v1/posts/validate').set(tenant.auth).send(body).expect(200);
      expect(validate.body.valid).toBe(false);
      expect(validate.body.errors).toEqual([expect.objectContaining({ accountId: acc.tiktok.id, field })]);
      expect(validate.body.errors[0].message).toContain(acc.tiktok.id);

      const dry = await t
        .http()
        .post('/v1/posts/bulk')
        .set(tenant.auth)
        .send({ dryRun: true, posts: [body] });
      expect(dry.status).toBe(200);
      expect(dry.body.results[0].errors).toEqual([expect.objectContaining({ accountId: acc.tiktok.id, field })]);
    });

    it('should accept a first comment when the TikTok account opts out with perAccount null', async () => {
      const res = await createPost(t, tenant.auth, {
        content: {
          message: 'Hello',
          videoUrl: media('video.mp4'),
          perAccount: { [acc.tiktok.id]: { firstComment: null } },
        },
        accountIds: [acc.tiktok.id, acc.youtube.id],
        platforms: { youtube: { title: 'A video' } },
        firstComment: 'Thanks for watching',
      });
      expect(res.status).toBe(201);
      const byPlatform = Object.fromEntries(
        (res.body.post.targets as { platform: string; firstComment: unknown }[]).map((x) => [
          x.platform,
          x.firstComment,
        ]),
      );
      expect(byPlatform).toEqual({ tiktok: null, youtube: { status: 'pending', id: null, error: null } });
    });

    it('should refuse a first comment added by PUT to a draft for a TikTok account', async () => {
      const draft = await createPost(t, tenant.auth, {
        content: 'Draft',
        mediaUrls: [media('video.mp4')],
        accountIds: [acc.tiktok.id],
      }).expect(201);
      const res = await t
        .http()
        .put(`/v1/posts/${draft.body.id}`)
        .set(tenant.auth)
        .send({ content: { firstComment: 'Link in bio' } });
      expect(res.status).toBe(400);
      expect(res.body.error.details.field).toBe('content.firstComment');
      expect(res.body.error.message).toContain(acc.tiktok.id);
    });

    it('should refuse a first comment that is not a string, and one given twice', async () => {
      const bad = await createPost(t, tenant.auth, {
        content: { message: 'Hi', perAccount: { [acc.facebook.id]: { firstComment: 5 } } },
        accountIds: [acc.facebook.id],
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.field).toBe(`content.perAccount.${acc.facebook.id}.firstComment`);
      const twice = await createPost(t, tenant.auth, {
        content: { message: 'Hi', firstComment: 'a' },
        firstComment: 'b',
        accountIds: [acc.facebook.id],
      });
      expect(twice.status).toBe(400);
      expect(twice.body.error.details.field).toBe('firstComment');
    });
  });

  it('should post the comment as each account on Facebook, Instagram, LinkedIn, YouTube and Threads, with a per-account override', async () => {
    const imageId = await publishPost(t, tenant.auth, {
      content: {
        message: text(),
        imageUrls: [media('image.jpg')],
        perAccount: { [acc.linkedin.id]: { firstComment: 'LinkedIn readers: details below' } },
      },
      accountIds: [acc.facebook.id, acc.instagram.id, acc.linkedin.id, acc.threads.id],
      firstComment: 'Link in bio',
    });
    const videoId = await publishPost(t, tenant.auth, {
      content: text(),
      mediaUrls: [media('video.mp4')],
      accountIds: [acc.youtube.id],
      firstComment: 'Thanks for watching',
      platforms: { youtube: { title: 'First comment video' } },
    });
    expect(await waitForFinal(t, imageId)).toBe('published');
    expect(await waitForFinal(t, videoId, 60_000)).toBe('published');

    const targets = [...(await targetsOf(t, imageId)), ...(await targetsOf(t, videoId))];
    const expected: Record<string, string> = {
      facebook: 'Link in bio',
      instagram: 'Link in bio',
      linkedin: 'LinkedIn readers: details below',
      threads: 'Link in bio',
      youtube: 'Thanks for watching',
    };
    for (const target of targets) {
      expect({ platform: target.platform, status: target.status, comment: target.firstCommentStatus }).toEqual({
        platform: target.platform,
        status: 'success',
        comment: 'success',
      });
      const onNetwork = await commentsOn(target.platform, target.externalId!);
      expect(onNetwork.map((c) => [c.id, c.text])).toEqual([[expect.any(String), expected[target.platform]]]);
    }

    // A Threads reply is a media object of its own, but not one of the profile's posts.
    const threads = targets.find((x) => x.platform === 'threads')!;
    expect(await sandboxItems(t, acc.threads)).toContain(threads.externalId);
    expect(await sandboxItems(t, acc.threads)).not.toContain(threads.firstCommentId);

    // The API and the post.published event show each result.
    const read = await t.http().get(`/v1/posts/${imageId}`).set(tenant.auth).expect(200);
    for (const target of read.body.post.targets as { platform: string; firstComment: unknown }[])
      expect(target.firstComment).toEqual({ status: 'success', id: expect.any(String), error: null });
    expect(read.body.post.content.firstComment).toBe('Link in bio');
    const published = (await postEvents(t, imageId)).find((e) => e.type === 'post.published')!;
    expect(published.data.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          platform: 'facebook',
          firstComment: { status: 'success', id: expect.any(String), error: null },
        }),
      ]),
    );

    // Facebook's GET comments shows the Page's own comment.
    const fb = targets.find((x) => x.platform === 'facebook')!;
    const creds = await t.app.get(AccountCredentialsService).forPublishing(fb.accountId);
    const listed = await t.app.get(PlatformRegistry).get('facebook').listComments(creds, fb.externalId!);
    expect(listed.comments.map((c) => c.text)).toContain('Link in bio');
  }, 90_000);

  it('should keep the target published when its comment fails, and say why', async () => {
    const postId = await publishPost(t, tenant.auth, {
      content: text(),
      accountIds: [acc.facebook.id, acc.linkedin.id],
      firstComment: 'Read more #sandbox-comment-fails:facebook',
    });
    expect(await waitForFinal(t, postId)).toBe('published');
    const read = await t.http().get(`/v1/posts/${postId}`).set(tenant.auth).expect(200);
    const byPlatform = Object.fromEntries(
      (read.body.post.targets as { platform: string; status: string; firstComment: Record<string, unknown> }[]).map(
        (x) => [x.platform, x],
      ),
    );
    expect(byPlatform.facebook.status).toBe('success');
    expect(byPlatform.facebook.firstComment).toEqual({
      status: 'failed',
      id: null,
      error: expect.stringContaining('#sandbox-comment-fails'),
    });
    expect(byPlatform.linkedin.firstComment).toMatchObject({ status: 'success' });
  });

  it('should not post the comment again when the post is retried', async () => {
    const postId = await publishPost(t, tenant.auth, {
      content: text('#sandbox-fail:linkedin'),
      accountIds: [acc.facebook.id, acc.linkedin.id],
      firstComment: 'Only once',
    });
    expect(await waitForFinal(t, postId)).toBe('partially_published');
    const [fbBefore] = (await targetsOf(t, postId)).filter((x) => x.platform === 'facebook');
    expect(fbBefore.firstCommentStatus).toBe('success');

    await t.http().post(`/v1/posts/${postId}/retry`).set(tenant.auth).send({}).expect(200);
    expect(await waitForFinal(t, postId)).toBe('partially_published');
    const [fbAfter] = (await targetsOf(t, postId)).filter((x) => x.platform === 'facebook');
    expect(fbAfter.firstCommentId).toBe(fbBefore.firstCommentId);
    expect((await commentsOn('facebook', fbAfter.externalId!)).map((c) => c.text)).toEqual(['Only once']);
    // The failed LinkedIn target never got a comment.
    const [li] = (await targetsOf(t, postId)).filter((x) => x.platform === 'linkedin');
    expect(li.firstCommentStatus).toBeNull();
  });

  it('should mark a comment interrupted mid-call as failed instead of sending it again', async () => {
    const other = await createTenant(t);
    const account = await insertAccount(t, other, 'facebook');
    const { postId, targetIds } = await insertPost(t, other, [account], {
      state: 'processing',
      content: { firstComment: 'Maybe sent' },
    });
    // A worker died after recording the attempt, before the answer was recorded.
    await t.ds.getRepository(PostTargetEntity).update(targetIds[0], {
      status: 'success',
      externalId: `${account.platformAccountId}_1`,
      firstCommentStatus: 'attempting',
      firstCommentAt: new Date(),
    });
    expect(await t.app.get(PublishPostProcessor).run(postId)).toBe('published');
    const [target] = await targetsOf(t, postId);
    expect(target).toMatchObject({ status: 'success', firstCommentStatus: 'failed', firstCommentId: null });
    expect(target.firstCommentError).toContain(INTERRUPTED_COMMENT);
  });

  it('should find a comment the network took before the worker stopped, and not post it again', async () => {
    const postId = await publishPost(t, tenant.auth, {
      content: text(),
      accountIds: [acc.facebook.id],
      firstComment: 'Posted before the crash',
    });
    expect(await waitForFinal(t, postId)).toBe('published');
    const [done] = await targetsOf(t, postId);
    // As if the worker had died after the network took the comment, before recording its answer.
    await t.ds.getRepository(PostTargetEntity).update(done.id, {
      firstCommentStatus: 'attempting',
      firstCommentId: null,
      firstCommentAt: new Date(Date.now() - 1000),
    });
    await t.ds.query(`UPDATE posts SET state = 'processing' WHERE id = $1`, [postId]);
    expect(await t.app.get(PublishPostProcessor).run(postId)).toBe('published');
    const [after] = await targetsOf(t, postId);
    expect(after).toMatchObject({ firstCommentStatus: 'success', firstCommentId: done.firstCommentId });
    expect((await commentsOn('facebook', done.externalId!)).map((c) => c.text)).toEqual(['Posted before the crash']);
  });
});
