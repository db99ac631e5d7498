import DOC from './doc-bodies.json';
import { PlatformError } from '../kit/adapter';
import { graphEndpoints, graphFetch, timeout } from '@test/support/doc-fetch';
import { FacebookAdapter } from './facebook.adapter';

const BASE = 'https://graph.facebook.com/v23.0';
const account = { platformAccountId: '1234567890', accessToken: 'page-token', metadata: {} };

describe('FacebookAdapter (doc bodies)', () => {
  const net = graphFetch().eachTest();
  const adapter = new FacebookAdapter(graphEndpoints(BASE, 'https://www.facebook.com/v23.0/dialog/oauth'));

  it('should build the OAuth dialog URL with PKCE and the Pages scopes', () => {
    const url = new URL(
      adapter.authorizeUrl({ state: 's1', redirectUri: 'https://app.example/cb', codeChallenge: 'chal' }),
    );
    expect(url.origin + url.pathname).toBe('https://www.facebook.com/v23.0/dialog/oauth');
    expect(url.searchParams.get('scope')).toContain('pages_manage_posts');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('should exchange a code, then for a long-lived token', async () => {
    // Long-lived token body from https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived
    net.on(
      'GET',
      '/oauth/access_token',
      { body: { access_token: 'short', token_type: 'bearer', expires_in: 5183 } },
      { body: { access_token: '{long-lived-user-access-token}', token_type: 'bearer', expires_in: 5183944 } },
    );
    const tokens = await adapter.exchangeCode({ code: 'c', redirectUri: 'https://app.example/cb', codeVerifier: 'v' });
    expect(tokens.accessToken).toBe('{long-lived-user-access-token}');
    expect(tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 5183000_000);
    expect(net.calls[0].params).toMatchObject({ code: 'c', code_verifier: 'v', client_secret: 'app-secret' });
    expect(net.calls[1].params).toMatchObject({ grant_type: 'fb_exchange_token', fb_exchange_token: 'short' });
  });

  it('should list Pages with their Page tokens from /me/accounts', async () => {
    // Body from https://developers.facebook.com/docs/pages-api/getting-started (Step 1)
    net.on('GET', '/me/accounts', { body: DOC.pages });
    const [page] = await adapter.listAccounts({ accessToken: 'user' });
    expect(page).toMatchObject({
      platformAccountId: 'page_id',
      name: 'Name of this Page',
      tokens: { accessToken: 'page_access_token', expiresAt: null },
      metadata: { category: 'Internet Company' },
    });
  });

  it('should publish a text post, saving progress before the call', async () => {
    // POST /{page-id}/feed answers the new post id: https://developers.facebook.com/docs/pages-api/posts
    net.on('POST', '/page_id/feed', { body: { id: 'page_post_id' } }).on('GET', '/page_post_id', {
      body: { permalink_url: 'https://www.facebook.com/page_id/posts/post_id', id: 'page_post_id' },
    });
    const saved: Record<string, unknown>[] = [];
    const res = await adapter.publish({
      account: { ...account, platformAccountId: 'page_id' },
      content: { contentType: 'text', text: 'Hello', link: 'https://e.x', imageUrls: [], options: {} },
      publishState: {},
      saveState: async (s) => void saved.push(s),
    });
    expect(res).toEqual({ externalId: 'page_post_id', url: 'https://www.facebook.com/page_id/posts/post_id' });
    expect(saved[0]).toMatchObject({ kind: 'feed', sentAt: expect.any(String) });
    expect(saved.at(-1)).toMatchObject({ postId: 'page_post_id' });
    expect(net.calls[0].params).toMatchObject({ message: 'Hello', link: 'https://e.x', access_token: 'page-token' });
  });

  it('should publish several photos as unpublished photos attached to one feed post', async () => {
    net
      .on('POST', '/photos', { body: { id: '111' } }, { body: { id: '222' } })
      .on('POST', '/feed', { body: { id: '1234567890_999' } })
      .on('GET', '/1234567890_999', { body: { id: '1234567890_999' } });
    const res = await adapter.publish({
      account,
      content: {
        contentType: 'image',
        text: 'Two',
        imageUrls: ['https://e.x/1.jpg', 'https://e.x/2.jpg'],
        options: {},
      },
      publishState: {},
      saveState: async () => {},
    });
    expect(res.externalId).toBe('1234567890_999');
    expect(net.calls[0].params).toMatchObject({ url: 'https://e.x/1.jpg', published: 'false' });
    expect(net.calls[2].params).toMatchObject({
      message: 'Two',
      'attached_media[0]': '{"media_fbid":"111"}',
      'attached_media[1]': '{"media_fbid":"222"}',
    });
  });

  it('should publish a single photo and use its post_id', async () => {
    // POST /{page-id}/photos answers { id, post_id }: https://developers.facebook.com/docs/graph-api/reference/page/photos/#Creating
    net
      .on('POST', '/photos', { body: { id: '5555', post_id: '1234567890_6666' } })
      .on('GET', /_6666$/, { body: { id: '1234567890_6666' } });
    const res = await adapter.publish({
      account,
      content: { contentType: 'image', text: 'One', imageUrls: ['https://e.x/1.jpg'], options: {} },
      publishState: {},
      saveState: async () => {},
    });
    expect(res.externalId).toBe('1234567890_6666');
    expect(net.calls[0].params).toMatchObject({ url: 'https://e.x/1.jpg', caption: 'One', published: 'true' });
  });

  it('should report an unknown outcome when the publish call times out, and a network error on a read', async () => {
    net.on('POST', '/feed', timeout()).on('GET', '/published_posts', timeout());
    const err = await adapter
      .publish({
        account,
        content: { contentType: 'text', text: 'x', imageUrls: [], options: {} },
        publishState: {},
        saveState: async () => {},
      })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ category: 'unknown_outcome', retryable: false });
    const read = await adapter
      .findPublished({
        account,
        content: { contentType: 'text', text: 'x', imageUrls: [], options: {} },
        publishState: { sentAt: new Date().toISOString() },
      })
      .catch((e: unknown) => e);
    expect(read).toBeInstanceOf(PlatformError);
    expect(read).toMatchObject({ category: 'network_error', retryable: true });
  });

  it('should map a photo download failure (#324) to media_rejected', async () => {
    net.on('POST', '/photos', {
      status: 400,
      body: { error: { message: '(#324) Requires upload file', type: 'OAuthException', code: 324, fbtrace_id: 'AbC' } },
    });
    const err = (await adapter
      .publish({
        account,
        content: { contentType: 'image', text: '', imageUrls: ['https://e.x/x.jpg'], options: {} },
        publishState: {},
        saveState: async () => {},
      })
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toMatchObject({ category: 'media_rejected', message: '(#324) Requires upload file' });
  });

  it('should parse Page Insights day series and comments', async () => {
    // Insights body shape: https://developers.facebook.com/docs/graph-api/reference/insights (values[].end_time = end of day)
    net
      .on('GET', '/insights', { body: DOC.pageInsights })
      .on('GET', '/published_posts', {
        body: { data: [{ created_time: '2026-03-01T10:00:00+0000', shares: { count: 3 }, id: 'a' }] },
      })
      .on('GET', '/comments', {
        body: {
          data: [
            { created_time: '2026-03-01T10:05:00+0000', from: { name: 'Jane', id: '7' }, message: 'Nice', id: 'c1' },
          ],
          paging: { cursors: { before: 'b', after: 'a1' }, next: 'https://graph.facebook.com/next' },
        },
      });
    expect(await adapter.getDailyMetrics(account, '2026-03-01', '2026-03-02')).toEqual([
      { date: '2026-03-01', views: 12, reach: 0, engagement: 0, followers: 400, shares: 3 },
      { date: '2026-03-02', views: 15, reach: 0, engagement: 0, followers: 0, shares: 0 },
    ]);
    expect(await adapter.listComments(account, 'a')).toEqual({
      comments: [
        { id: 'c1', externalPostId: 'a', authorName: 'Jane', text: 'Nice', createdAt: '2026-03-01T10:05:00.000Z' },
      ],
      nextCursor: 'a1',
    });
  });

  it('should split Page Insights ranges into 90-day windows', async () => {
    net.on('GET', '/insights', { body: { data: [] } }).on('GET', '/published_posts', { body: { data: [] } });
    const days = await adapter.getDailyMetrics(account, '2026-01-01', '2026-04-10');
    expect(days).toHaveLength(100);
    const windows = net.calls
      .filter((c) => c.url.pathname.endsWith('/insights'))
      .map((c) => [c.params.since, c.params.until].map((v) => new Date(Number(v) * 1000).toISOString().slice(0, 10)));
    expect(windows).toEqual([
      ['2026-01-01', '2026-04-01'],
      ['2026-04-01', '2026-04-11'],
    ]);
  });
});
