import { createHash, randomBytes } from 'node:crypto';
import type {
  AccountCredentials,
  OAuthTokens,
  PlatformAdapter,
  PublishContent,
  PublishResult,
} from '@/modules/networks/kit/adapter';
import { PlatformError } from '@/modules/networks/kit/adapter';
import type { PlatformName } from '@/modules/networks/platform-name';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import { dailyAccountMetrics, itemMetrics } from '@/modules/networks/kit/sandbox/sandbox-metrics';
import { clearOfUtcMidnight, createTestApp, TestApp } from '@test/support/test-app';

/**
 * The linkedin, tiktok and youtube adapters against their simulators, over real HTTP:
 * authorize → code → exchange → refresh → listAccounts → publish → findPublished → metrics →
 * magic-word, media and token failures.
 */

const REDIRECT_URI = 'https://client.example.com/oauth/callback';
const today = (): string => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number): string => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

interface Publisher {
  publish(content: Partial<PublishContent>): Promise<PublishResult>;
  state: Record<string, unknown>;
}

describe('sandbox: LinkedIn, TikTok, YouTube adapters', () => {
  // Daily metrics are read for today (UTC), more than once: no test straddles midnight.
  beforeEach(() => clearOfUtcMidnight());
  let t: TestApp;
  let media: (name: string) => string;

  beforeAll(async () => {
    t = await createTestApp();
    media = (name) => `${t.url}/sandbox/_control/media/${name}`;
  });
  afterAll(async () => t.close());

  const adapter = (p: PlatformName): PlatformAdapter => t.app.get(PlatformRegistry).get(p);

  /** Follows the consent URL (auto consent) to the code, checks the state, exchanges the code. */
  async function connect(p: PlatformName): Promise<OAuthTokens> {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const url = adapter(p).authorizeUrl({ state: `st-${p}`, redirectUri: REDIRECT_URI, codeChallenge: challenge });
    expect(url.startsWith(`${t.url}/sandbox/${p}/`)).toBe(true);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location') ?? '');
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(`st-${p}`);
    const code = back.searchParams.get('code') ?? '';
    const tokens = await adapter(p).exchangeCode({ code, redirectUri: REDIRECT_URI, codeVerifier: verifier });
    // A code is single use.
    await expect(
      adapter(p).exchangeCode({ code, redirectUri: REDIRECT_URI, codeVerifier: verifier }),
    ).rejects.toMatchObject({ category: 'auth_expired' });
    return tokens;
  }

  function publisher(p: PlatformName, account: AccountCredentials): Publisher {
    const pub: Publisher = {
      state: {},
      publish: (c) =>
        adapter(p).publish({
          account,
          content: { contentType: 'text', text: '', link: null, imageUrls: [], videoUrl: null, options: {}, ...c },
          publishState: pub.state,
          saveState: async (s) => {
            pub.state = s;
          },
        }),
    };
    return pub;
  }

  async function failure(promise: Promise<unknown>): Promise<PlatformError> {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PlatformError);
    return err as PlatformError;
  }

  const credentials = (
    tokens: OAuthTokens,
    a: { platformAccountId: string; metadata?: Record<string, unknown> },
  ): AccountCredentials => ({
    platformAccountId: a.platformAccountId,
    accessToken: tokens.accessToken,
    metadata: a.metadata ?? {},
  });

  describe('linkedin', () => {
    it('should connect a member with two organisations, refresh, and publish text, images and a video', async () => {
      const li = adapter('linkedin');
      const first = await connect('linkedin');
      expect(first.refreshToken).toBeTruthy();
      const tokens = await li.refresh({ accessToken: first.accessToken, refreshToken: first.refreshToken ?? null });
      expect(tokens.accessToken).not.toBe(first.accessToken);
      const accounts = await li.listAccounts(tokens);
      expect(accounts.map((a) => a.metadata?.kind)).toEqual(['member', 'organization', 'organization']);
      expect(accounts[0].platformAccountId).toMatch(/^urn:li:person:/);
      // Every grant is a new sandbox member.
      const other = await li.listAccounts(await connect('linkedin'));
      expect(other[0].platformAccountId).not.toBe(accounts[0].platformAccountId);

      const org = credentials(tokens, accounts[1]);
      const text = publisher('linkedin', org);
      const post = await text.publish({ text: 'Launch day! #news (really) @team', link: 'https://example.com/launch' });
      expect(post.externalId).toMatch(/^urn:li:share:\d+$/);
      expect(post.url).toBe(`https://www.linkedin.com/feed/update/${post.externalId}/`);
      await expect(
        li.findPublished({
          account: org,
          content: {
            contentType: 'text',
            text: 'Launch day! #news (really) @team',
            link: null,
            imageUrls: [],
            videoUrl: null,
            options: {},
          },
          publishState: text.state,
        }),
      ).resolves.toEqual(post);

      const images = await publisher('linkedin', org).publish({
        contentType: 'image',
        text: 'Two pictures',
        imageUrls: [media('image.png'), media('image.jpg')],
      });
      expect(images.externalId).toMatch(/^urn:li:share:/);
      const member = credentials(tokens, accounts[0]);
      const single = await publisher('linkedin', member).publish({
        contentType: 'image',
        text: 'One picture',
        imageUrls: [media('image.jpg')],
      });
      expect(single.externalId).toMatch(/^urn:li:share:/);
      const video = publisher('linkedin', org);
      const clip = await video.publish({
        contentType: 'video',
        text: 'A clip',
        videoUrl: media('video.mp4'),
        options: { title: 'Clip' },
      });
      expect(clip.externalId).toMatch(/^urn:li:ugcPost:/);
      expect(video.state).toMatchObject({ video: { finalized: true }, postUrn: clip.externalId });
    });

    it('should find a post whose answer was lost, and say null when no post was attempted', async () => {
      const li = adapter('linkedin');
      const tokens = await connect('linkedin');
      const [member] = await li.listAccounts(tokens);
      const account = credentials(tokens, member);
      const pub = publisher('linkedin', account);
      const content: PublishContent = {
        contentType: 'text',
        text: 'Find me',
        link: null,
        imageUrls: [],
        videoUrl: null,
        options: {},
      };
      const post = await pub.publish(content);
      // As if the answer had been lost: only the attempt marker survived.
      const lost = { postAttemptedAt: pub.state.postAttemptedAt };
      await expect(li.findPublished({ account, content, publishState: lost })).resolves.toEqual(post);
      await expect(
        li.findPublished({ account, content: { ...content, text: 'Other' }, publishState: lost }),
      ).resolves.toBeNull();
      await expect(li.findPublished({ account, content, publishState: {} })).resolves.toBeNull();
    });

    it('should report deterministic analytics for organisation and member posts', async () => {
      const li = adapter('linkedin');
      const tokens = await connect('linkedin');
      const accounts = await li.listAccounts(tokens);
      const org = credentials(tokens, accounts[1]);
      const post = await publisher('linkedin', org).publish({ text: 'Numbers' });
      const m = itemMetrics(post.externalId);
      await expect(li.getItemMetrics(org, post.externalId)).resolves.toEqual({
        views: m.views,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        reach: m.reach,
        engagement: m.engagement,
      });
      const days = await li.getDailyMetrics(org, daysAgo(2), today());
      expect(days).toHaveLength(3);
      for (const d of days) {
        const x = dailyAccountMetrics(org.platformAccountId, d.date);
        expect(d).toEqual({
          date: d.date,
          views: x.views,
          reach: x.reach,
          shares: x.shares,
          engagement: x.engagement,
          followers: dailyAccountMetrics(org.platformAccountId, today()).followers,
        });
      }
      const member = credentials(tokens, accounts[0]);
      const own = await publisher('linkedin', member).publish({ text: 'Mine' });
      await expect(li.getItemMetrics(member, own.externalId)).resolves.toMatchObject({
        views: itemMetrics(own.externalId).views,
        likes: itemMetrics(own.externalId).likes,
      });
      const memberDays = await li.getDailyMetrics(member, daysAgo(1), today());
      expect(memberDays.map((d) => d.views)).toEqual(
        [daysAgo(1), today()].map((d) => dailyAccountMetrics(member.platformAccountId, d).views),
      );
      expect(li.supportsComments).toBe(false);
    });

    it('should fail on magic words, missing media and revoked grants with LinkedIn categories', async () => {
      const li = adapter('linkedin');
      const tokens = await connect('linkedin');
      const [member] = await li.listAccounts(tokens);
      const account = credentials(tokens, member);
      const failed = await failure(publisher('linkedin', account).publish({ text: 'Nope #sandbox-fail:linkedin' }));
      expect(failed).toMatchObject({ category: 'invalid_content', retryable: false });
      expect(failed.message).toContain('#sandbox-fail');
      const flaky = publisher('linkedin', account);
      expect(await failure(flaky.publish({ text: 'Wobbly #sandbox-transient:linkedin' }))).toMatchObject({
        category: 'network_error',
        retryable: true,
      });
      await expect(flaky.publish({ text: 'Wobbly #sandbox-transient:linkedin' })).resolves.toMatchObject({
        externalId: expect.stringMatching(/^urn:li:share:/),
      });
      expect(
        await failure(
          publisher('linkedin', account).publish({
            contentType: 'image',
            text: 'x',
            imageUrls: [media('missing.png')],
          }),
        ),
      ).toMatchObject({ category: 'media_rejected' });
      expect(
        li.validate({
          contentType: 'text',
          text: 'x'.repeat(3001),
          link: null,
          imageUrls: [],
          videoUrl: null,
          options: {},
        }),
      ).toHaveLength(1);
      await fetch(`${t.url}/sandbox/_control/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: tokens.refreshToken }),
      });
      expect(
        await failure(li.refresh({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? null })),
      ).toMatchObject({ category: 'auth_expired' });
      expect(await failure(li.listAccounts(tokens))).toMatchObject({
        category: 'auth_expired',
        details: { status: 401 },
      });
    });
  });

  describe('tiktok', () => {
    it('should connect a creator, refresh with rotation, and publish a video and photos after polling the status', async () => {
      const tt = adapter('tiktok');
      const first = await connect('tiktok');
      const tokens = await tt.refresh({ accessToken: first.accessToken, refreshToken: first.refreshToken ?? null });
      expect(tokens.refreshToken).not.toBe(first.refreshToken);
      const accounts = await tt.listAccounts(tokens);
      expect(accounts).toHaveLength(1);
      const account = credentials(tokens, accounts[0]);
      const video = publisher('tiktok', account);
      const started = Date.now();
      const result = await video.publish({ contentType: 'video', text: 'Dance #fyp', videoUrl: media('video.mp4') });
      expect(Date.now() - started).toBeGreaterThan(1000); // PROCESSING_DOWNLOAD first, complete on a later poll
      expect(result.externalId).toMatch(/^7\d{18}$/);
      expect(result.url).toBe(`https://www.tiktok.com/@${String(accounts[0].username)}/video/${result.externalId}`);
      expect(video.state).toMatchObject({
        publishId: expect.stringMatching(/^v_pub_url~v2\./),
        postId: result.externalId,
      });
      const content: PublishContent = {
        contentType: 'video',
        text: 'Dance #fyp',
        link: null,
        imageUrls: [],
        videoUrl: media('video.mp4'),
        options: {},
      };
      await expect(
        tt.findPublished({ account, content, publishState: { publishId: video.state.publishId } }),
      ).resolves.toEqual(result);
      // The init answer lost: the creator's video list shows the post.
      await expect(
        tt.findPublished({
          account,
          content,
          publishState: { initAttemptedAt: new Date(Date.now() - 5000).toISOString() },
        }),
      ).resolves.toMatchObject({ externalId: result.externalId });

      const photos = await publisher('tiktok', account).publish({
        contentType: 'image',
        text: 'Carousel',
        imageUrls: [media('image.jpg'), media('image.jpg')],
      });
      expect(photos.externalId).toMatch(/^7\d{18}$/);
      const privateVideo = await publisher('tiktok', account).publish({
        contentType: 'video',
        text: 'Just me',
        videoUrl: media('video.mp4'),
        options: { privacyLevel: 'SELF_ONLY' },
      });
      expect(privateVideo).toMatchObject({ externalId: expect.stringMatching(/^v_pub_url~/), url: null });

      const m = itemMetrics(result.externalId);
      await expect(tt.getItemMetrics(account, result.externalId)).resolves.toEqual({
        views: m.views,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        reach: m.views,
        engagement: m.likes + m.comments + m.shares,
      });
      const [yesterday, day] = await tt.getDailyMetrics(account, daysAgo(1), today());
      const p = itemMetrics(photos.externalId);
      expect(day).toEqual({
        date: today(),
        views: m.views + p.views,
        reach: m.views + p.views,
        shares: m.shares + p.shares,
        engagement: m.likes + m.comments + m.shares + p.likes + p.comments + p.shares,
        followers: dailyAccountMetrics(account.platformAccountId, today()).followers,
      });
      expect(yesterday).toMatchObject({ views: 0, engagement: 0 });
    });

    it('should fail on magic words, unreachable media, PNG photos and invalid tokens with TikTok categories', async () => {
      const tt = adapter('tiktok');
      const tokens = await connect('tiktok');
      const [creator] = await tt.listAccounts(tokens);
      const account = credentials(tokens, creator);
      const failed = await failure(
        publisher('tiktok', account).publish({
          contentType: 'video',
          text: 'No #sandbox-fail',
          videoUrl: media('video.mp4'),
        }),
      );
      expect(failed).toMatchObject({ category: 'invalid_content', details: { networkCode: 'spam_risk_text' } });
      const flaky = publisher('tiktok', account);
      expect(
        await failure(
          flaky.publish({ contentType: 'video', text: 'Hmm #sandbox-transient:tiktok', videoUrl: media('video.mp4') }),
        ),
      ).toMatchObject({ category: 'network_error', retryable: true });
      expect(flaky.state).toEqual({});
      await expect(
        flaky.publish({ contentType: 'video', text: 'Hmm #sandbox-transient:tiktok', videoUrl: media('video.mp4') }),
      ).resolves.toMatchObject({ externalId: expect.stringMatching(/^7\d{18}$/) });
      const pulled = publisher('tiktok', account);
      expect(
        await failure(pulled.publish({ contentType: 'video', text: 'Gone', videoUrl: media('missing.mp4') })),
      ).toMatchObject({
        category: 'media_rejected',
        details: { networkCode: 'video_pull_failed' },
      });
      expect(pulled.state).toEqual({});
      const other = await connect('tiktok');
      const [creator2] = await tt.listAccounts(other);
      const png = await failure(
        publisher('tiktok', credentials(other, creator2)).publish({
          contentType: 'image',
          text: 'PNG',
          imageUrls: [media('image.png')],
        }),
      );
      expect(png).toMatchObject({ category: 'media_rejected', details: { networkCode: 'file_format_check_failed' } });
      await fetch(`${t.url}/sandbox/_control/expire`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ accessToken: tokens.accessToken }),
      });
      expect(await failure(tt.listAccounts(tokens))).toMatchObject({
        category: 'auth_expired',
        details: { networkCode: 'access_token_invalid' },
      });
      await expect(
        tt.refresh({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? null }),
      ).resolves.toMatchObject({ accessToken: expect.any(String) });
    });
  });

  describe('youtube', () => {
    it('should connect a channel, refresh keeping the refresh token, upload a video and read its numbers', async () => {
      const yt = adapter('youtube');
      const first = await connect('youtube');
      const tokens = await yt.refresh({ accessToken: first.accessToken, refreshToken: first.refreshToken ?? null });
      expect(tokens.refreshToken).toBe(first.refreshToken);
      const [channel, ...more] = await yt.listAccounts(tokens);
      expect(more).toHaveLength(0);
      expect(channel.platformAccountId).toMatch(/^UC[\w-]{22}$/);
      const account = credentials(tokens, channel);
      const pub = publisher('youtube', account);
      const content: PublishContent = {
        contentType: 'video',
        text: 'About this video',
        link: null,
        imageUrls: [],
        videoUrl: media('video.mp4'),
        options: { title: 'My upload', privacyStatus: 'unlisted' },
      };
      const video = await pub.publish(content);
      expect(video.externalId).toMatch(/^[\w-]{11}$/);
      expect(video.url).toBe(`https://www.youtube.com/watch?v=${video.externalId}`);
      expect(pub.state).toMatchObject({ uploadUrl: expect.stringContaining('upload_id='), videoId: video.externalId });
      // The session answers for a lost final answer; the uploads playlist for an expired session.
      const lost = {
        uploadUrl: pub.state.uploadUrl,
        size: pub.state.size,
        uploadAttemptedAt: pub.state.uploadAttemptedAt,
      };
      await expect(yt.findPublished({ account, content, publishState: lost })).resolves.toEqual(video);
      const expired = {
        ...lost,
        uploadUrl: `${t.url}/sandbox/youtube/upload/youtube/v3/videos?uploadType=resumable&upload_id=gone`,
      };
      await expect(yt.findPublished({ account, content, publishState: expired })).resolves.toEqual(video);
      await expect(
        yt.findPublished({ account, content: { ...content, options: { title: 'Other' } }, publishState: expired }),
      ).resolves.toBeNull();

      const m = itemMetrics(video.externalId);
      await expect(yt.getItemMetrics(account, video.externalId)).resolves.toEqual({
        views: m.views,
        likes: m.likes,
        comments: m.comments,
        shares: 0,
        reach: m.views,
        engagement: m.likes + m.comments,
      });
      const days = await yt.getDailyMetrics(account, daysAgo(3), today());
      expect(days).toHaveLength(4);
      for (const d of days) {
        const x = dailyAccountMetrics(account.platformAccountId, d.date);
        expect(d).toEqual({
          date: d.date,
          views: x.views,
          reach: x.views,
          shares: x.shares,
          engagement: x.engagement,
          followers: x.followers,
        });
      }
    });

    it('should resume an interrupted upload from the bytes the session received', async () => {
      const yt = adapter('youtube');
      const tokens = await connect('youtube');
      const [channel] = await yt.listAccounts(tokens);
      const account = credentials(tokens, channel);
      const bytes = new Uint8Array(await (await fetch(media('video.mp4'))).arrayBuffer());
      const start = await fetch(
        `${t.url}/sandbox/youtube/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tokens.accessToken}`,
            'content-type': 'application/json',
            'x-upload-content-length': String(bytes.length),
            'x-upload-content-type': 'video/mp4',
          },
          body: JSON.stringify({
            snippet: { title: 'Resumed', description: '' },
            status: { privacyStatus: 'private' },
          }),
        },
      );
      const uploadUrl = start.headers.get('location') ?? '';
      // Half of the bytes arrive before the connection drops.
      const half = await fetch(uploadUrl, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens.accessToken}`, 'content-range': `bytes 0-9/${bytes.length}` },
        body: bytes.subarray(0, 10),
      });
      expect(half.status).toBe(308);
      expect(half.headers.get('range')).toBe('bytes=0-9');
      const content: PublishContent = {
        contentType: 'video',
        text: '',
        link: null,
        imageUrls: [],
        videoUrl: media('video.mp4'),
        options: { title: 'Resumed' },
      };
      const state = { uploadUrl, size: bytes.length, uploadAttemptedAt: new Date().toISOString() };
      await expect(yt.findPublished({ account, content, publishState: state })).resolves.toBeNull();
      const pub = publisher('youtube', account);
      pub.state = state;
      const video = await pub.publish(content);
      expect(video.externalId).toMatch(/^[\w-]{11}$/);
    });

    it('should fail on magic words, metadata rules, missing media and revoked grants with YouTube categories', async () => {
      const yt = adapter('youtube');
      const tokens = await connect('youtube');
      const [channel] = await yt.listAccounts(tokens);
      const account = credentials(tokens, channel);
      const base = { contentType: 'video' as const, videoUrl: media('video.mp4'), options: { title: 'T' } };
      expect(await failure(publisher('youtube', account).publish({ ...base, text: 'x #sandbox-fail' }))).toMatchObject({
        category: 'invalid_content',
        details: { networkCode: 'invalidVideoMetadata' },
      });
      const flaky = publisher('youtube', account);
      expect(await failure(flaky.publish({ ...base, text: 'x #sandbox-transient:youtube' }))).toMatchObject({
        category: 'network_error',
        retryable: true,
        details: { networkCode: 'backendError' },
      });
      await expect(flaky.publish({ ...base, text: 'x #sandbox-transient:youtube' })).resolves.toMatchObject({
        externalId: expect.any(String),
      });
      expect(
        await failure(
          publisher('youtube', account).publish({ ...base, text: 'x', options: { title: 'y'.repeat(101) } }),
        ),
      ).toMatchObject({
        category: 'invalid_content',
        details: { networkCode: 'invalidTitle' },
      });
      expect(
        await failure(publisher('youtube', account).publish({ ...base, text: 'x', videoUrl: media('missing.mp4') })),
      ).toMatchObject({ category: 'media_rejected' });
      expect(
        await failure(publisher('youtube', account).publish({ ...base, text: 'x', videoUrl: media('image.png') })),
      ).toMatchObject({
        category: 'media_rejected',
        details: { networkCode: 'invalidFile' },
      });
      expect(
        yt.validate({
          contentType: 'video',
          text: '',
          link: null,
          imageUrls: [],
          videoUrl: media('video.mp4'),
          options: {},
        }),
      ).toEqual([expect.objectContaining({ field: 'youtube.title' })]);
      await fetch(`${t.url}/sandbox/_control/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: tokens.refreshToken }),
      });
      expect(
        await failure(yt.refresh({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken ?? null })),
      ).toMatchObject({
        category: 'auth_expired',
        message: 'Google OAuth: Token has been expired or revoked.',
      });
      expect(await failure(yt.getItemMetrics(account, 'x'))).toMatchObject({
        category: 'auth_expired',
        details: { networkCode: 'authError' },
      });
    });
  });
});
