import { createHash } from 'node:crypto';
import { PlatformError } from '@/modules/networks/kit/adapter';
import type { AccountCredentials, PlatformAdapter, PublishContent } from '@/modules/networks/kit/adapter';
import { instagramNetwork } from '@/modules/networks/instagram/instagram.network';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import { dailyAccountMetrics, itemComments, itemMetrics } from '@/modules/networks/kit/sandbox/sandbox-metrics';
import { holdNextAnswer } from '@test/support/hold-answer';
import { connectSandbox, SANDBOX_REDIRECT_URI, stateRecorder } from '@test/support/sandbox-connect';
import { clearOfUtcMidnight, createTestApp, TestApp } from '@test/support/test-app';

const text = (t: string): PublishContent => ({ contentType: 'text', text: t, imageUrls: [], options: {} });

describe('sandbox: Meta networks driven through their adapters', () => {
  // Daily metrics are read for today (UTC), more than once: no test straddles midnight.
  beforeEach(() => clearOfUtcMidnight());
  let t: TestApp;
  let media: (name: string) => string;
  beforeAll(async () => {
    t = await createTestApp();
    media = (name) => `${t.url}/sandbox/_control/media/${name}`;
  });
  afterAll(async () => t.close());

  const adapter = (p: 'facebook' | 'instagram' | 'threads'): PlatformAdapter => t.app.get(PlatformRegistry).get(p);
  const creds = (
    a: { platformAccountId: string; tokens?: { accessToken: string } },
    fallback: string,
  ): AccountCredentials => ({
    platformAccountId: a.platformAccountId,
    accessToken: a.tokens?.accessToken ?? fallback,
    metadata: {},
  });
  async function expectPlatformError(
    p: Promise<unknown>,
    category: string,
    retryable?: boolean,
  ): Promise<PlatformError> {
    const err = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PlatformError);
    expect((err as PlatformError).category).toBe(category);
    if (retryable !== undefined) expect((err as PlatformError).retryable).toBe(retryable);
    return err as PlatformError;
  }

  describe('facebook', () => {
    it('should connect a new sandbox user with several pages per grant', async () => {
      const fb = adapter('facebook');
      const a = await connectSandbox(fb);
      const b = await connectSandbox(fb);
      expect(a.accounts).toHaveLength(3);
      expect(a.accounts[0].tokens?.accessToken).toBeTruthy();
      expect(a.tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 50 * 86_400_000);
      expect(b.accounts.map((x) => x.platformAccountId)).not.toContain(a.accounts[0].platformAccountId);
    });

    it('should refuse a wrong PKCE verifier, and the code once it was tried', async () => {
      const fb = adapter('facebook');
      const challenge = createHash('sha256').update('right-verifier').digest('base64url');
      const res = await fetch(
        fb.authorizeUrl({ state: 's', redirectUri: SANDBOX_REDIRECT_URI, codeChallenge: challenge }),
        { redirect: 'manual' },
      );
      const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
      const wrong = await expectPlatformError(
        fb.exchangeCode({ code, redirectUri: SANDBOX_REDIRECT_URI, codeVerifier: 'wrong' }),
        'invalid_content',
      );
      expect(wrong.message).toContain('code_verifier');
      const reused = await expectPlatformError(
        fb.exchangeCode({ code, redirectUri: SANDBOX_REDIRECT_URI, codeVerifier: 'right-verifier' }),
        'invalid_content',
      );
      expect(reused.message).toContain('already been used');
    });

    it('should publish text, photos and a video, then read metrics and comments', async () => {
      const fb = adapter('facebook');
      const { accounts } = await connectSandbox(fb);
      const account = creds(accounts[1], '');
      const rec = stateRecorder();
      const textPost = await fb.publish({ account, content: text('Hello from the sandbox'), publishState: {}, ...rec });
      expect(textPost.externalId).toMatch(new RegExp(`^${account.platformAccountId}_\\d+$`));
      expect(textPost.url).toContain('/sandbox/facebook/www/');
      expect(rec.state.postId).toBe(textPost.externalId);

      const one = await fb.publish({
        account,
        content: { ...text('One photo'), contentType: 'image', imageUrls: [media('image.png')] },
        publishState: {},
        saveState: async () => {},
      });
      expect(one.externalId).toContain('_');
      const album = stateRecorder();
      const many = await fb.publish({
        account,
        content: {
          ...text('Three photos'),
          contentType: 'image',
          imageUrls: [media('image.png'), media('image.jpg'), media('image.png')],
        },
        publishState: {},
        ...album,
      });
      expect(album.state.photoIds).toHaveLength(3);
      const video = await fb.publish({
        account,
        content: { ...text('A video'), contentType: 'video', videoUrl: media('video.mp4') },
        publishState: {},
        saveState: async () => {},
      });
      expect(video.externalId).toMatch(/^\d+$/);

      const m = itemMetrics(many.externalId);
      expect(await fb.getItemMetrics(account, many.externalId)).toEqual({
        views: m.views,
        reach: m.reach,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        engagement: m.likes + m.comments + m.shares,
      });

      const days = await fb.getDailyMetrics(account, '2026-03-01', '2026-03-03');
      expect(days.map((d) => d.date)).toEqual(['2026-03-01', '2026-03-02', '2026-03-03']);
      const expected = dailyAccountMetrics(account.platformAccountId, '2026-03-02');
      expect(days[1]).toEqual({
        date: '2026-03-02',
        views: expected.views,
        reach: expected.reach,
        engagement: expected.engagement,
        followers: expected.followers,
        shares: 0,
      });
      const today = new Date().toISOString().slice(0, 10);
      const todays = await fb.getDailyMetrics(account, today, today);
      expect(todays[0].shares).toBe([textPost, one, many].reduce((s, p) => s + itemMetrics(p.externalId).shares, 0));

      const all = itemComments(textPost.externalId, new Date().toISOString());
      const first = await fb.listComments(account, textPost.externalId);
      expect(first.comments.length).toBe(all.length);
      expect(first.comments[0]).toMatchObject({
        externalPostId: textPost.externalId,
        authorName: all[0].authorName,
        text: all[0].text,
      });
      expect(first.nextCursor).toBeNull();
    });

    it('should find a post after an unknown outcome, and answer null when it was never sent', async () => {
      const fb = adapter('facebook');
      const { accounts } = await connectSandbox(fb);
      const account = creds(accounts[0], '');
      const content = text(`Lost answer ${Date.now()}`);
      const rec = stateRecorder();
      const published = await fb.publish({ account, content, publishState: {}, ...rec });
      const { postId: _dropped, ...lostAnswer } = rec.state;
      expect(await fb.findPublished({ account, content, publishState: lostAnswer })).toMatchObject({
        externalId: published.externalId,
      });
      expect(
        await fb.findPublished({
          account,
          content: text('never sent'),
          publishState: { kind: 'feed', sentAt: new Date().toISOString() },
        }),
      ).toBeNull();
      expect(await fb.findPublished({ account, content, publishState: {} })).toBeNull();
    });

    it('should map magic words, bad media and revoked tokens to categories', async () => {
      const fb = adapter('facebook');
      const { tokens, accounts } = await connectSandbox(fb);
      const account = creds(accounts[0], '');
      const fail = await expectPlatformError(
        fb.publish({ account, content: text('Nope #sandbox-fail'), publishState: {}, saveState: async () => {} }),
        'invalid_content',
        false,
      );
      expect(fail.message).toContain('#sandbox-fail');
      await expect(
        fb.publish({
          account,
          content: text('ok here #sandbox-fail:threads'),
          publishState: {},
          saveState: async () => {},
        }),
      ).resolves.toBeTruthy();
      const flaky = text(`Flaky ${Date.now()} #sandbox-transient:facebook`);
      await expectPlatformError(
        fb.publish({ account, content: flaky, publishState: {}, saveState: async () => {} }),
        'network_error',
        true,
      );
      await expect(
        fb.publish({ account, content: flaky, publishState: {}, saveState: async () => {} }),
      ).resolves.toBeTruthy();
      await expectPlatformError(
        fb.publish({
          account,
          content: { ...text('x'), contentType: 'image', imageUrls: [media('missing.png')] },
          publishState: {},
          saveState: async () => {},
        }),
        'media_rejected',
        false,
      );
      await expectPlatformError(
        fb.publish({
          account,
          content: { ...text('x'), contentType: 'video', videoUrl: media('image.png') },
          publishState: {},
          saveState: async () => {},
        }),
        'media_rejected',
        false,
      );

      await t.http().post('/sandbox/_control/revoke').send({ accessToken: tokens.accessToken }).expect(200);
      await expectPlatformError(
        fb.refresh({ accessToken: tokens.accessToken, refreshToken: null }),
        'auth_expired',
        false,
      );
      await expectPlatformError(
        fb.publish({ account, content: text('after revoke'), publishState: {}, saveState: async () => {} }),
        'auth_expired',
        false,
      );
    });

    it('should validate Facebook rules', () => {
      const fb = adapter('facebook');
      expect(fb.validate(text('x'.repeat(63_206)))).toEqual([]);
      expect(fb.validate(text('x'.repeat(63_207)))[0].field).toBe('text');
      expect(
        fb.validate({ ...text('x'), contentType: 'image', imageUrls: Array(11).fill('https://e.x/a.png') })[0].field,
      ).toBe('imageUrls');
    });
  });

  describe('instagram', () => {
    it('should connect one professional account per grant and publish image, carousel and reel', async () => {
      const ig = adapter('instagram');
      const { tokens, accounts } = await connectSandbox(ig);
      expect(accounts).toHaveLength(1);
      expect(accounts[0].metadata).toHaveProperty('pageId');
      const account = creds(accounts[0], tokens.accessToken);
      const single = stateRecorder();
      const image = await ig.publish({
        account,
        content: { ...text('One image #sandbox'), contentType: 'image', imageUrls: [media('image.jpg')] },
        publishState: {},
        ...single,
      });
      expect(single.state).toMatchObject({ containerId: expect.any(String), mediaId: image.externalId });
      expect(image.url).toContain('/sandbox/instagram/www/p/');
      const carousel = stateRecorder();
      await ig.publish({
        account,
        content: {
          ...text('Carousel'),
          contentType: 'image',
          imageUrls: [media('image.jpg'), media('image.png'), media('image.jpg')],
        },
        publishState: {},
        ...carousel,
      });
      expect(carousel.state.childIds).toHaveLength(3);
      const reel = await ig.publish({
        account,
        content: { ...text('Reel'), contentType: 'video', videoUrl: media('video.mp4') },
        publishState: {},
        saveState: async () => {},
      });
      expect(reel.externalId).toBeTruthy();

      const m = itemMetrics(image.externalId);
      expect(await ig.getItemMetrics(account, image.externalId)).toEqual({
        views: m.views,
        reach: m.reach,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        engagement: m.engagement,
      });
      const days = await ig.getDailyMetrics(account, '2026-02-27', '2026-03-01');
      const today = dailyAccountMetrics(account.platformAccountId, new Date().toISOString().slice(0, 10));
      const feb28 = dailyAccountMetrics(account.platformAccountId, '2026-02-28');
      expect(days[1]).toEqual({
        date: '2026-02-28',
        views: feb28.views,
        reach: feb28.reach,
        engagement: feb28.engagement,
        shares: feb28.shares,
        followers: today.followers,
      });
      const { comments, nextCursor } = await ig.listComments(account, image.externalId);
      expect(comments.map((c) => c.text)).toEqual(
        itemComments(image.externalId, new Date().toISOString()).map((c) => c.text),
      );
      expect(nextCursor).toBeNull();
    });

    it('should resume a flaky publish with the saved container, and map failures', async () => {
      const ig = adapter('instagram');
      const { tokens, accounts } = await connectSandbox(ig);
      const account = creds(accounts[0], tokens.accessToken);
      const content: PublishContent = {
        ...text(`Flaky ${Date.now()} #sandbox-transient:instagram`),
        contentType: 'image',
        imageUrls: [media('image.png')],
      };
      const rec = stateRecorder();
      await expectPlatformError(ig.publish({ account, content, publishState: {}, ...rec }), 'network_error', true);
      const containerId = rec.state.containerId;
      const retried = await ig.publish({ account, content, publishState: rec.state, ...rec });
      expect(rec.state).toMatchObject({ containerId, mediaId: retried.externalId });

      const image = (t2: string, url: string): PublishContent => ({
        ...text(t2),
        contentType: 'image',
        imageUrls: [url],
      });
      await expectPlatformError(
        ig.publish({
          account,
          content: image('no #sandbox-fail', media('image.png')),
          publishState: {},
          saveState: async () => {},
        }),
        'invalid_content',
        false,
      );
      await expectPlatformError(
        ig.publish({
          account,
          content: image('missing', media('nope.jpg')),
          publishState: {},
          saveState: async () => {},
        }),
        'media_rejected',
        false,
      );
      const badVideo = await expectPlatformError(
        ig.publish({
          account,
          content: { ...text('bad video'), contentType: 'video', videoUrl: media('nope.mp4') },
          publishState: {},
          saveState: async () => {},
        }),
        'media_rejected',
        false,
      );
      expect(badVideo.message).toContain('HTTP 404');
      await t.http().post('/sandbox/_control/expire').send({ accessToken: tokens.accessToken }).expect(200);
      await expectPlatformError(
        ig.publish({
          account,
          content: image('expired', media('image.png')),
          publishState: {},
          saveState: async () => {},
        }),
        'auth_expired',
        false,
      );
    });

    it('should report an unknown outcome on a time-out and find the media afterwards', async () => {
      const registry = t.app.get(PlatformRegistry);
      // The time-out leaves the other calls room on a loaded machine; the publish call cannot beat
      // it, as its answer is held until the adapter has given up.
      const slow = instagramNetwork.create({
        ...registry.endpointsFor('instagram'),
        timeoutMs: 5000,
      });
      const { tokens, accounts } = await connectSandbox(slow);
      const account = creds(accounts[0], tokens.accessToken);
      const content: PublishContent = {
        ...text(`Slow ${Date.now()} #sandbox-slow`),
        contentType: 'image',
        imageUrls: [media('image.png')],
      };
      const rec = stateRecorder();
      const publishCall = holdNextAnswer(t, 'POST', /^\/sandbox\/instagram\/.*\/media_publish(\?|$)/);
      await expectPlatformError(slow.publish({ account, content, publishState: {}, ...rec }), 'unknown_outcome', false);
      expect(rec.state.publishSentAt).toBeTruthy();
      // The network published it (its answer is ready, held): now it can be found.
      await publishCall.answered;
      publishCall.release();
      const found = await slow.findPublished({ account, content, publishState: rec.state });
      expect(found).toMatchObject({ externalId: expect.any(String) });
      expect(
        await slow.findPublished({ account, content, publishState: { containerId: rec.state.containerId } }),
      ).toBeNull();
    });

    it('should validate Instagram rules', () => {
      const ig = adapter('instagram');
      const img = (n: number, t2 = 'x'): PublishContent => ({
        ...text(t2),
        contentType: 'image',
        imageUrls: Array(n).fill('https://e.x/a.png'),
      });
      expect(ig.validate(img(1))).toEqual([]);
      expect(ig.validate(text('only text'))[0].field).toBe('imageUrls');
      expect(ig.validate(img(11))[0].field).toBe('imageUrls');
      expect(ig.validate(img(1, 'x'.repeat(2201)))[0].field).toBe('text');
      expect(ig.validate(img(1, Array.from({ length: 31 }, (_, i) => `#t${i}`).join(' ')))[0].message).toContain(
        '30 hashtags',
      );
    });
  });

  describe('threads', () => {
    it('should connect, publish text, image, carousel and video, and read metrics', async () => {
      const th = adapter('threads');
      const { tokens, accounts } = await connectSandbox(th);
      expect(accounts).toHaveLength(1);
      const account = creds(accounts[0], tokens.accessToken);
      const post = await th.publish({
        account,
        content: { ...text('Hello Threads'), link: 'https://example.com' },
        publishState: {},
        saveState: async () => {},
      });
      expect(post.url).toContain('/sandbox/threads/www/@');
      await th.publish({
        account,
        content: { ...text('img'), contentType: 'image', imageUrls: [media('image.png')] },
        publishState: {},
        saveState: async () => {},
      });
      const carousel = stateRecorder();
      await th.publish({
        account,
        content: { ...text('carousel'), contentType: 'image', imageUrls: [media('image.png'), media('image.jpg')] },
        publishState: {},
        ...carousel,
      });
      expect(carousel.state.childIds).toHaveLength(2);
      await th.publish({
        account,
        content: { ...text('video'), contentType: 'video', videoUrl: media('video.mp4') },
        publishState: {},
        saveState: async () => {},
      });

      const m = itemMetrics(post.externalId);
      expect(await th.getItemMetrics(account, post.externalId)).toEqual({
        views: m.views,
        reach: m.views,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        engagement: m.likes + m.comments + m.shares,
      });
      const [day] = await th.getDailyMetrics(account, '2026-03-01', '2026-03-01');
      const d = dailyAccountMetrics(account.platformAccountId, '2026-03-01');
      expect(day).toEqual({
        date: '2026-03-01',
        views: d.views,
        reach: d.views,
        engagement: d.engagement,
        shares: d.shares,
        followers: d.followers,
      });
      expect(th.supportsComments).toBe(false);
    });

    it('should refresh a long-lived token until the grant is revoked, and map failures', async () => {
      const th = adapter('threads');
      const { tokens, accounts } = await connectSandbox(th);
      const refreshed = await th.refresh({ accessToken: tokens.accessToken, refreshToken: null });
      expect(refreshed.accessToken).not.toBe(tokens.accessToken);
      const account = creds(accounts[0], refreshed.accessToken);
      await expectPlatformError(
        th.publish({ account, content: text('#sandbox-fail:threads'), publishState: {}, saveState: async () => {} }),
        'invalid_content',
        false,
      );
      await expectPlatformError(
        th.publish({
          account,
          content: { ...text('v'), contentType: 'video', videoUrl: media('gone.mp4') },
          publishState: {},
          saveState: async () => {},
        }),
        'media_rejected',
        false,
      );
      await t.http().post('/sandbox/_control/revoke').send({ accessToken: tokens.accessToken }).expect(200);
      await expectPlatformError(
        th.refresh({ accessToken: refreshed.accessToken, refreshToken: null }),
        'auth_expired',
        false,
      );
    });

    it('should validate Threads rules', () => {
      const th = adapter('threads');
      expect(th.validate(text('x'.repeat(500)))).toEqual([]);
      expect(th.validate(text('x'.repeat(501)))[0].field).toBe('text');
      expect(th.validate(text(`${'x'.repeat(497)}😀`))[0].field).toBe('text');
      expect(
        th.validate({ ...text('x'), contentType: 'image', imageUrls: Array(21).fill('https://e.x/a.png') })[0].field,
      ).toBe('imageUrls');
    });
  });

  it('should show a consent page when auto consent is off, and redirect with a code after Allow', async () => {
    const manual = await createTestApp({ env: { SANDBOX_AUTO_CONSENT: 'false' } });
    try {
      const fb = manual.app.get(PlatformRegistry).get('facebook');
      const challenge = createHash('sha256').update('verifier-1').digest('base64url');
      const page = await fetch(
        fb.authorizeUrl({ state: 'st', redirectUri: SANDBOX_REDIRECT_URI, codeChallenge: challenge }),
        { redirect: 'manual' },
      );
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<button type="submit" name="decision" value="allow">Allow</button>');
      const consent = /name="consent" value="([^"]+)"/.exec(html)![1];
      const allow = await manual
        .http()
        .post('/sandbox/_control/consent')
        .type('form')
        .send({ consent, decision: 'allow' })
        .expect(302);
      const back = new URL(allow.headers.location);
      expect(back.searchParams.get('state')).toBe('st');
      await manual
        .http()
        .post('/sandbox/_control/consent')
        .type('form')
        .send({ consent, decision: 'allow' })
        .expect(400);
      const tokens = await fb.exchangeCode({
        code: back.searchParams.get('code')!,
        redirectUri: SANDBOX_REDIRECT_URI,
        codeVerifier: 'verifier-1',
      });
      expect(await fb.listAccounts(tokens)).toHaveLength(3);
    } finally {
      await manual.close();
    }
  });

  it('should open sandbox permalinks as small HTML pages', async () => {
    const th = adapter('threads');
    const { tokens, accounts } = await connectSandbox(th);
    const post = await th.publish({
      account: creds(accounts[0], tokens.accessToken),
      content: text('Permalink <check>'),
      publishState: {},
      saveState: async () => {},
    });
    const res = await fetch(post.url!);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Permalink &#60;check&#62;');
  });

  it('should answer 404 on sandbox routes when the sandbox is off', async () => {
    const off = await createTestApp({ env: { SANDBOX_PLATFORMS: 'false' } });
    try {
      const res = await off.http().get('/sandbox/facebook/v23.0/me/accounts');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    } finally {
      await off.close();
    }
  });
});
