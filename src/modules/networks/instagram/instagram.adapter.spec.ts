import DOC from './doc-bodies.json';
import { PlatformError, PublishContent } from '../kit/adapter';
import { recordingRequest } from '@test/support/doc-fetch';
import { graphEndpoints, graphFetch, timeout } from '@test/support/doc-fetch';
import { InstagramAdapter } from './instagram.adapter';

const BASE = 'https://graph.facebook.com/v23.0';
const account = { platformAccountId: '17841400008460056', accessToken: 'user-token', metadata: {} };
const image = (urls: string[]): PublishContent => ({
  contentType: 'image',
  text: 'Caption #one',
  imageUrls: urls,
  options: {},
});
// content_publishing_limit body: https://developers.facebook.com/docs/instagram-platform/content-publishing ("Publishing Limit")
const quota = { body: { data: [{ quota_usage: 2, config: { quota_total: 50, quota_duration: 86400 } }] } };

describe('InstagramAdapter (doc bodies)', () => {
  const net = graphFetch().eachTest();
  const adapter = new InstagramAdapter(graphEndpoints(BASE, 'https://www.facebook.com/v23.0/dialog/oauth'), {
    pollDelaysMs: [1, 1, 1, 1],
  });

  it("should list the Instagram accounts linked to the user's Pages", async () => {
    net.on('GET', '/me/accounts', { body: DOC.pages });
    const accounts = await adapter.listAccounts({ accessToken: 't' });
    expect(accounts).toEqual([
      {
        platformAccountId: '17841405822304914',
        name: 'ig_a',
        username: 'ig_a',
        avatarUrl: null,
        metadata: { pageId: '134895793791914', pageName: 'Page A' },
      },
    ]);
  });

  it('should create a container, poll status_code until FINISHED, then media_publish', async () => {
    // Container status sample: https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-container
    net
      .on('POST', `/${account.platformAccountId}/media`, { body: { id: '17889615691921648' } })
      .on(
        'GET',
        '/17889615691921648',
        { body: { status_code: 'IN_PROGRESS', id: '17889615691921648' } },
        { body: { status_code: 'FINISHED', id: '17889615691921648' } },
      )
      .on('GET', '/content_publishing_limit', quota)
      .on('POST', '/media_publish', { body: { id: '17920238422030506' } })
      .on('GET', '/17920238422030506', {
        body: { permalink: 'https://www.instagram.com/p/Cabc/', id: '17920238422030506' },
      });
    const saved: Record<string, unknown>[] = [];
    const res = await adapter.publish({
      account,
      content: image(['https://e.x/a.jpg']),
      publishState: {},
      saveState: async (s) => void saved.push(s),
    });
    expect(res).toEqual({ externalId: '17920238422030506', url: 'https://www.instagram.com/p/Cabc/' });
    expect(net.calls[0].params).toMatchObject({ image_url: 'https://e.x/a.jpg', caption: 'Caption #one' });
    expect(net.calls.find((c) => c.url.pathname.endsWith('/media_publish'))!.params).toMatchObject({
      creation_id: '17889615691921648',
    });
    expect(saved.map((s) => Object.keys(s).sort().join(','))).toEqual([
      'containerId',
      'containerId,publishSentAt',
      'containerId,mediaId,publishSentAt',
    ]);
  });

  it('should build a carousel from children containers and a reel from a video', async () => {
    /** Containers `ids` (the last one published) are created, FINISHED, under quota, and published as `media`. */
    const published = (ids: string[], media: string) =>
      net
        .reset()
        .on('POST', '/media', ...ids.map((id) => ({ body: { id } })))
        .on('GET', `/${ids.at(-1)}`, { body: { status_code: 'FINISHED', id: ids.at(-1) } })
        .on('GET', '/content_publishing_limit', quota)
        .on('POST', '/media_publish', { body: { id: media } })
        .on('GET', `/${media}`, { body: { id: media } });
    published(['c1', 'c2', 'parent'], 'm1');
    await adapter.publish(recordingRequest(account, image(['https://e.x/1.jpg', 'https://e.x/2.jpg'])));
    expect(net.calls[0].params).toMatchObject({ image_url: 'https://e.x/1.jpg', is_carousel_item: 'true' });
    expect(net.calls[2].params).toMatchObject({ media_type: 'CAROUSEL', children: 'c1,c2', caption: 'Caption #one' });

    published(['r'], 'm2');
    const reel = {
      contentType: 'video' as const,
      text: 'Reel',
      videoUrl: 'https://e.x/v.mp4',
      imageUrls: [],
      options: {},
    };
    await adapter.publish(recordingRequest(account, reel));
    expect(net.calls[0].params).toMatchObject({ media_type: 'REELS', video_url: 'https://e.x/v.mp4' });
  });

  it('should reject media when the container ends in ERROR', async () => {
    const failed = { status_code: 'ERROR', status: 'Error: Media upload has failed with error code 2207003', id: 'x' };
    net.on('POST', '/media', { body: { id: 'x' } });
    net.on('GET', '/x', { body: failed });
    const err = (await adapter
      .publish(recordingRequest(account, image(['https://e.x/a.jpg'])))
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toMatchObject({ category: 'media_rejected', retryable: false });
    expect(err.message).toContain('2207003');
  });

  it('should map Instagram error bodies (media download, daily cap)', async () => {
    net.on('POST', '/media', {
      status: 400,
      body: {
        error: {
          message: 'The media could not be fetched from this URI',
          type: 'OAuthException',
          code: 9004,
          error_subcode: 2207052,
          is_transient: false,
          error_user_title: 'Media download has failed',
          error_user_msg: 'The media could not be fetched from this uri: https://e.x/a.jpg',
          fbtrace_id: 'A1',
        },
      },
    });
    await expect(adapter.publish(recordingRequest(account, image(['https://e.x/a.jpg'])))).rejects.toMatchObject({
      category: 'media_rejected',
    });
    net
      .reset()
      .on('POST', '/media', { body: { id: 'x' } })
      .on('GET', '/x', { body: { status_code: 'FINISHED', id: 'x' } })
      .on('GET', '/content_publishing_limit', {
        body: { data: [{ quota_usage: 50, config: { quota_total: 50, quota_duration: 86400 } }] },
      });
    await expect(adapter.publish(recordingRequest(account, image(['https://e.x/a.jpg'])))).rejects.toMatchObject({
      category: 'network_rate_limited',
      retryable: true,
    });
    expect(net.calls.some((c) => c.url.pathname.endsWith('/media_publish'))).toBe(false);
  });

  it('should resume from a saved container and check it after a lost publish answer', async () => {
    net
      .on('GET', '/saved', { body: { status_code: 'PUBLISHED', id: 'saved' } })
      .on('GET', `/${account.platformAccountId}/media`, {
        body: {
          data: [
            { id: 'old', caption: 'other', timestamp: '2020-01-01T00:00:00+0000' },
            {
              id: '1790',
              caption: 'Caption #one',
              timestamp: new Date().toISOString(),
              permalink: 'https://www.instagram.com/p/X/',
            },
          ],
        },
      });
    const found = await adapter.findPublished({
      account,
      content: image(['https://e.x/a.jpg']),
      publishState: { containerId: 'saved', publishSentAt: new Date(Date.now() - 5000).toISOString() },
    });
    expect(found).toEqual({ externalId: '1790', url: 'https://www.instagram.com/p/X/' });
    net.reset().on('GET', '/saved', { body: { status_code: 'FINISHED', id: 'saved' } });
    expect(
      await adapter.findPublished({
        account,
        content: image([]),
        publishState: { containerId: 'saved', publishSentAt: new Date().toISOString() },
      }),
    ).toBeNull();
    net
      .reset()
      .on('GET', '/c', { body: { status_code: 'FINISHED', id: 'c' } })
      .on('GET', '/content_publishing_limit', quota)
      .on('POST', '/media_publish', timeout());
    await expect(
      adapter.publish({
        account,
        content: image(['https://e.x/a.jpg']),
        publishState: { containerId: 'c' },
        saveState: async () => {},
      }),
    ).rejects.toMatchObject({
      category: 'unknown_outcome',
    });
  });

  it('should parse media insights and total_value account insights', async () => {
    // Media insights body shape: https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights
    net
      .on('GET', '/m1/insights', { body: DOC.mediaInsights })
      .on('GET', `/${account.platformAccountId}/insights`, {
        body: {
          data: [
            { name: 'reach', period: 'day', title: 'Accounts reached', total_value: { value: 321 }, id: 'x' },
            { name: 'views', period: 'day', total_value: { value: 999 } },
          ],
        },
      })
      .on('GET', `/${account.platformAccountId}`, { body: { followers_count: 1234, id: account.platformAccountId } });
    expect(await adapter.getItemMetrics(account, 'm1')).toEqual({
      views: 0,
      reach: 100,
      likes: 7,
      comments: 0,
      shares: 0,
      engagement: 9,
    });
    expect(await adapter.getDailyMetrics(account, '2026-03-01', '2026-03-01')).toEqual([
      { date: '2026-03-01', views: 999, reach: 321, engagement: 0, shares: 0, followers: 1234 },
    ]);
    expect(net.calls.find((c) => c.url.pathname.endsWith('/insights') && c.params.metric_type)!.params).toMatchObject({
      period: 'day',
      metric_type: 'total_value',
      since: String(Date.parse('2026-03-01T00:00:00Z') / 1000),
    });
  });

  it('should read the publishing cap with content_publishing_limit (quota_usage and config)', async () => {
    // Response example of https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/content_publishing_limit/
    net.on('GET', `/${account.platformAccountId}/content_publishing_limit`, {
      body: { data: [{ quota_usage: 2, config: { quota_total: 50, quota_duration: 86400 } }] },
    });
    await expect(adapter.publishingUsage(account)).resolves.toEqual({ used: 2, limit: 50, exhausted: false });
    expect(net.calls[0].params).toMatchObject({ fields: 'quota_usage,config', access_token: 'user-token' });
    net.reset().on('GET', '/content_publishing_limit', {
      body: { data: [{ quota_usage: 50, config: { quota_total: 50, quota_duration: 86400 } }] },
    });
    await expect(adapter.publishingUsage(account)).resolves.toMatchObject({ exhausted: true });
  });
});
