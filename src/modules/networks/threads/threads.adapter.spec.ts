import DOC from './doc-bodies.json';
import { PlatformError } from '../kit/adapter';
import { recordingRequest } from '@test/support/doc-fetch';
import { graphEndpoints, graphFetch } from '@test/support/doc-fetch';
import { ThreadsAdapter } from './threads.adapter';

const account = { platformAccountId: '1234', accessToken: 'th-token', metadata: {} };
const net = graphFetch().eachTest();
const adapter = new ThreadsAdapter(
  graphEndpoints('https://graph.threads.net/v1.0', 'https://threads.net/oauth/authorize'),
  { pollDelaysMs: [1, 1, 1, 1] },
);
/** Account 1234's container `container` is created, FINISHED, and published as 1234567 at `permalink`. */
const publishes = (container: string, permalink: string) =>
  net
    .on('POST', '/1234/threads', { body: { id: container } })
    .on('GET', `/${container}`, { body: { status: 'FINISHED', id: container } })
    .on('POST', '/1234/threads_publish', { body: { id: '1234567' } })
    .on('GET', '/1234567', { body: { permalink, id: '1234567' } });

describe('ThreadsAdapter (doc bodies)', () => {
  it('should exchange the code and then for a long-lived token at the host root', async () => {
    // https://developers.facebook.com/docs/threads/get-started/get-access-tokens-and-permissions and …/long-lived-tokens
    net
      .on('POST', '/oauth/access_token', { body: { access_token: 'THQVJ...', user_id: 12345678 } })
      .on('GET', '/access_token', {
        body: { access_token: '<LONG_LIVED_USER_ACCESS_TOKEN>', token_type: 'bearer', expires_in: 5183944 },
      });
    const tokens = await adapter.exchangeCode({
      code: 'c',
      redirectUri: 'https://app.example/cb',
      codeVerifier: 'unused',
    });
    expect(tokens.accessToken).toBe('<LONG_LIVED_USER_ACCESS_TOKEN>');
    expect(net.calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      'POST /oauth/access_token',
      'GET /access_token',
    ]);
    expect(net.calls[0].params).toMatchObject({
      grant_type: 'authorization_code',
      code: 'c',
      client_secret: 'app-secret',
    });
    expect(net.calls[1].params).toMatchObject({ grant_type: 'th_exchange_token', access_token: 'THQVJ...' });
  });

  it('should refresh with th_refresh_token, and map a dead token to auth_expired', async () => {
    net.on('GET', '/refresh_access_token', {
      body: { access_token: 'new', token_type: 'bearer', expires_in: 5183944 },
    });
    expect((await adapter.refresh({ accessToken: 'old', refreshToken: null })).accessToken).toBe('new');
    net.reset().on('GET', '/refresh_access_token', {
      status: 400,
      body: {
        error: {
          message: 'Error validating access token: Session has expired.',
          type: 'OAuthException',
          code: 190,
          error_subcode: 463,
          fbtrace_id: 'x',
        },
      },
    });
    await expect(adapter.refresh({ accessToken: 'old', refreshToken: null })).rejects.toMatchObject({
      category: 'auth_expired',
      retryable: false,
    });
  });

  it('should publish a TEXT container after its status is FINISHED', async () => {
    // Status sample: https://developers.facebook.com/docs/threads/troubleshooting
    publishes('17889615691921648', 'https://www.threads.net/@user/post/abc');
    const text = { contentType: 'text' as const, text: 'Hi', link: 'https://e.x', imageUrls: [], options: {} };
    const res = await adapter.publish(recordingRequest(account, text));
    expect(res).toEqual({ externalId: '1234567', url: 'https://www.threads.net/@user/post/abc' });
    expect(net.calls[0].params).toMatchObject({ media_type: 'TEXT', text: 'Hi', link_attachment: 'https://e.x' });
    expect(net.calls[1].params.fields).toContain('status');
  });

  it('should reject the media when the container reports ERROR with an error_message', async () => {
    net.on('POST', '/threads', { body: { id: '17889615691921648' } }).on('GET', '/17889615691921648', {
      body: { status: 'ERROR', id: '17889615691921648', error_message: 'FAILED_DOWNLOADING_VIDEO' },
    });
    const err = (await adapter
      .publish({
        account,
        content: { contentType: 'video', text: 'v', videoUrl: 'https://e.x/v.mp4', imageUrls: [], options: {} },
        publishState: {},
        saveState: async () => {},
      })
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toMatchObject({ category: 'media_rejected' });
    expect(err.message).toContain('FAILED_DOWNLOADING_VIDEO');
  });

  it('should read views as a daily series and the rest as totals', async () => {
    // Shapes from https://developers.facebook.com/docs/threads/insights (user insights: views has values, others total_value)
    net.on('GET', '/1234/threads_insights', { body: DOC.userInsights });
    expect(await adapter.getDailyMetrics(account, '2026-03-01', '2026-03-01')).toEqual([
      { date: '2026-03-01', views: 10, reach: 10, engagement: 7, shares: 1, followers: 88 },
    ]);
  });

  it('should read the publishing cap with threads_publishing_limit (quota_usage and config)', async () => {
    // Example response of https://developers.facebook.com/docs/threads/overview/#rate-limiting ("Posts")
    net.on('GET', `/${account.platformAccountId}/threads_publishing_limit`, {
      body: { data: [{ quota_usage: 4, config: { quota_total: 250, quota_duration: 86400 } }] },
    });
    await expect(adapter.publishingUsage(account)).resolves.toEqual({ used: 4, limit: 250, exhausted: false });
    expect(net.calls[0].params).toMatchObject({ fields: 'quota_usage,config', access_token: 'th-token' });
  });
});

describe('ThreadsAdapter first comment (doc bodies)', () => {
  it('should reply with a TEXT container carrying reply_to_id, then threads_publish', async () => {
    // https://developers.facebook.com/documentation/threads/retrieve-and-manage-replies/create-replies:
    // POST /me/threads { media_type, text, reply_to_id } → { id }; POST /{user}/threads_publish { creation_id } → { id }
    publishes('1234567890', 'https://www.threads.net/@u/post/abc');
    const res = await adapter.postComment({ account, externalId: '17890000000000001', text: 'Link in bio' });
    expect(res).toEqual({ id: '1234567' });
    expect(net.calls[0].params).toMatchObject({
      media_type: 'TEXT',
      text: 'Link in bio',
      reply_to_id: '17890000000000001',
      access_token: 'th-token',
    });
    expect(net.calls.find((c) => c.url.pathname.endsWith('/threads_publish'))!.params).toMatchObject({
      creation_id: '1234567890',
    });
  });
});
