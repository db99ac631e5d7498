import { consentPage, contentOf, DocFetch, recordingRequest, testEndpoints, timeout } from '@test/support/doc-fetch';
import { PublishContent } from '../kit/adapter';
import { googleHosts } from './youtube-api';
import { YouTubeAdapter } from './youtube.adapter';
import { youtubeNetwork } from './youtube.network';

const API = 'https://www.googleapis.com';
const SESSION =
  'https://www.googleapis.com/upload/youtube/v3/videos?uploadType=resumable&upload_id=xa298sd_f&part=snippet,status,contentDetails';

/** https://developers.google.com/identity/protocols/oauth2/web-server (step 5: exchange authorization code) */
const TOKEN_BODY = {
  access_token: '1/fFAGRNJru1FTz70BzhT3Zg',
  expires_in: 3920,
  token_type: 'Bearer',
  scope: 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly',
  refresh_token: '1//xEoDL4iW3cxlI7yDbSRFYNG01kVKM2C-259HOF2aQbI',
};
/** Same page, refreshing an access token (no refresh_token in the answer). */
const REFRESH_BODY = {
  access_token: '1/fFAGRNJru1FTz70BzhT3Zg',
  expires_in: 3920,
  scope: TOKEN_BODY.scope,
  token_type: 'Bearer',
};
/** https://developers.google.com/youtube/v3/docs/channels (resource representation, trimmed) */
const CHANNELS_BODY = {
  kind: 'youtube#channelListResponse',
  etag: 'W4Zt5nTbGFCqg6ADq3SGG6rKoRQ',
  pageInfo: { totalResults: 1, resultsPerPage: 5 },
  items: [
    {
      kind: 'youtube#channel',
      etag: 'Xp3s5Q2n7TdcTeL8SRIHsUSzr4E',
      id: 'UC_x5XG1OV2P6uZZ5FSM9Ttw',
      snippet: {
        title: 'Google for Developers',
        customUrl: '@googledevelopers',
        publishedAt: '2007-08-23T00:34:43Z',
        thumbnails: { default: { url: 'https://yt3.ggpht.com/default.jpg', width: 88, height: 88 } },
      },
      contentDetails: { relatedPlaylists: { likes: '', uploads: 'UU_x5XG1OV2P6uZZ5FSM9Ttw' } },
      statistics: {
        viewCount: '248000000',
        subscriberCount: '2470000',
        hiddenSubscriberCount: false,
        videoCount: '6200',
      },
    },
  ],
};
/** https://developers.google.com/youtube/v3/docs/videos (resource representation after insert, trimmed) */
const VIDEO_BODY = {
  kind: 'youtube#video',
  etag: 'abc',
  id: 'Ks-_Mh1QhMc',
  snippet: { title: 'Demo', channelId: 'UC_x5XG1OV2P6uZZ5FSM9Ttw' },
  status: { uploadStatus: 'uploaded', privacyStatus: 'public' },
};
/** https://developers.google.com/youtube/v3/docs/errors (quotaExceeded, as Google renders it) */
const QUOTA_ERROR = {
  error: {
    code: 403,
    message:
      'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
    errors: [
      {
        message:
          'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        domain: 'youtube.quota',
        reason: 'quotaExceeded',
      },
    ],
  },
};
/** Google's 401 for a bad token (core errors: authError). */
const AUTH_ERROR = {
  error: {
    code: 401,
    message:
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    errors: [
      {
        message: 'Invalid Credentials',
        domain: 'global',
        reason: 'authError',
        location: 'Authorization',
        locationType: 'header',
      },
    ],
    status: 'UNAUTHENTICATED',
  },
};
/** https://developers.google.com/youtube/v3/docs/videos/insert#errors (badRequest invalidTitle) */
const TITLE_ERROR = {
  error: {
    code: 400,
    message: 'The request metadata specifies an invalid or empty video title.',
    errors: [
      {
        message: 'The request metadata specifies an invalid or empty video title.',
        domain: 'youtube.video',
        reason: 'invalidTitle',
      },
    ],
  },
};

const content = contentOf({
  contentType: 'video',
  text: 'Description',
  videoUrl: 'https://media.example.com/v.mp4',
  options: { title: 'Demo', privacyStatus: 'unlisted' },
});
const CHANNEL = { platformAccountId: 'UC_x5XG1OV2P6uZZ5FSM9Ttw', accessToken: 'ya29.token' };
const request = (c: PublishContent, publishState?: Record<string, unknown>) =>
  recordingRequest({ ...CHANNEL, metadata: { uploadsPlaylistId: 'UU_x5XG1OV2P6uZZ5FSM9Ttw' } }, c, publishState);

describe('YouTubeAdapter (documented bodies)', () => {
  const net = new DocFetch().eachTest((n) =>
    n.on({ url: 'https://media.example.com/v.mp4', text: 'VIDEOBYTES', headers: { 'content-type': 'video/mp4' } }),
  );
  const adapter = new YouTubeAdapter(testEndpoints(youtubeNetwork.real));

  it("should use Google's consent page with offline access and the token host", () => {
    const url = consentPage(adapter);
    expect(url.origin + url.pathname).toBe('https://accounts.google.com/o/oauth2/v2/auth');
    expect(url.searchParams.get('access_type')).toBe('offline');
    expect(googleHosts(testEndpoints(youtubeNetwork.real)).tokenUrl).toBe('https://oauth2.googleapis.com/token');
  });

  it('should exchange a code, and keep the refresh token when a refresh answer has none', async () => {
    net.on({ method: 'POST', url: 'https://oauth2.googleapis.com/token', json: TOKEN_BODY, once: true });
    net.on({ method: 'POST', url: 'https://oauth2.googleapis.com/token', json: REFRESH_BODY, once: true });
    net.on({
      method: 'POST',
      url: 'https://oauth2.googleapis.com/token',
      status: 400,
      json: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
    });
    const tokens = await adapter.exchangeCode({
      code: '4/P7q7W91',
      redirectUri: 'https://app.example/cb',
      codeVerifier: 'v',
    });
    expect(tokens).toMatchObject({ accessToken: TOKEN_BODY.access_token, refreshToken: TOKEN_BODY.refresh_token });
    const refreshed = await adapter.refresh({ accessToken: 'old', refreshToken: TOKEN_BODY.refresh_token });
    expect(refreshed.refreshToken).toBe(TOKEN_BODY.refresh_token);
    await expect(adapter.refresh({ accessToken: 'old', refreshToken: 'revoked' })).rejects.toMatchObject({
      category: 'auth_expired',
      message: 'Google OAuth: Token has been expired or revoked.',
    });
  });

  it('should list the channel of the grant', async () => {
    net.on({ url: `${API}/youtube/v3/channels?part=snippet,contentDetails&mine=true`, json: CHANNELS_BODY });
    await expect(adapter.listAccounts({ accessToken: 't' })).resolves.toEqual([
      {
        platformAccountId: 'UC_x5XG1OV2P6uZZ5FSM9Ttw',
        name: 'Google for Developers',
        username: '@googledevelopers',
        avatarUrl: 'https://yt3.ggpht.com/default.jpg',
        metadata: { uploadsPlaylistId: 'UU_x5XG1OV2P6uZZ5FSM9Ttw' },
      },
    ]);
  });

  it('should open a resumable session, save its URL, then PUT the bytes and return the video', async () => {
    net.on({
      method: 'POST',
      url: `${API}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`,
      headers: { location: SESSION },
    });
    net.on({ method: 'PUT', url: SESSION, status: 201, json: VIDEO_BODY });
    const req = request(content());
    await expect(adapter.publish(req)).resolves.toEqual({
      externalId: 'Ks-_Mh1QhMc',
      url: 'https://www.youtube.com/watch?v=Ks-_Mh1QhMc',
    });
    const init = net.find('uploadType=resumable&part=snippet,status', 'POST')[0];
    expect(init.headers['x-upload-content-length']).toBe('10');
    expect(init.headers['x-upload-content-type']).toBe('video/mp4');
    expect(DocFetch.body(init)).toEqual({
      snippet: { title: 'Demo', description: 'Description', categoryId: '22' },
      status: { privacyStatus: 'unlisted', selfDeclaredMadeForKids: false },
    });
    expect(req.saved[0]).toMatchObject({ uploadUrl: SESSION, size: 10 });
    expect(req.saved.at(-1)).toMatchObject({ videoId: 'Ks-_Mh1QhMc' });
  });

  it('should resume an interrupted upload from the Range of a 308 status answer', async () => {
    net.on({ method: 'PUT', url: SESSION, status: 308, headers: { range: 'bytes=0-3' }, once: true });
    net.on({ method: 'PUT', url: SESSION, status: 200, json: VIDEO_BODY });
    await adapter.publish(
      request(content(), { uploadUrl: SESSION, size: 10, uploadAttemptedAt: new Date().toISOString() }),
    );
    const [query, rest] = net.find(SESSION, 'PUT');
    expect(query.headers['content-range']).toBe('bytes */10');
    expect(rest.headers['content-range']).toBe('bytes 4-9/10');
    expect(rest.body).toEqual(new TextEncoder().encode('OBYTES'));
    expect(net.find('uploadType=resumable&part=snippet,status', 'POST')).toHaveLength(0);
  });

  it('should report a time-out while sending the bytes as an unknown outcome that the session status settles', async () => {
    net.on({ method: 'POST', url: 'uploadType=resumable', headers: { location: SESSION } });
    net.on({ method: 'PUT', url: SESSION, error: timeout(), once: true });
    const req = request(content());
    await expect(adapter.publish(req)).rejects.toMatchObject({ category: 'unknown_outcome' });
    net.on({ method: 'PUT', url: SESSION, status: 201, json: VIDEO_BODY, once: true });
    await expect(adapter.findPublished({ ...req, publishState: req.saved.at(-1)! })).resolves.toMatchObject({
      externalId: 'Ks-_Mh1QhMc',
    });
    net.on({ method: 'PUT', url: SESSION, status: 308, once: true });
    await expect(adapter.findPublished({ ...req, publishState: req.saved.at(-1)! })).resolves.toBeNull();
    // An expired session: the channel's uploads playlist tells.
    net.on({ method: 'PUT', url: SESSION, status: 404, text: 'Not Found', once: true });
    net.on({
      url: '/youtube/v3/playlistItems?part=snippet',
      json: {
        items: [
          {
            snippet: {
              title: 'Demo',
              publishedAt: new Date().toISOString(),
              resourceId: { kind: 'youtube#video', videoId: 'Ks-_Mh1QhMc' },
            },
          },
        ],
      },
    });
    await expect(adapter.findPublished({ ...req, publishState: req.saved.at(-1)! })).resolves.toMatchObject({
      externalId: 'Ks-_Mh1QhMc',
    });
  });

  it('should map Google error bodies: quota → rate limited, authError → auth_expired, invalidTitle → invalid_content', async () => {
    net.on({ method: 'POST', url: 'uploadType=resumable', status: 403, json: QUOTA_ERROR, once: true });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'network_rate_limited',
      retryable: true,
      message: 'The request cannot be completed because you have exceeded your quota.',
      details: { networkCode: 'quotaExceeded' },
    });
    net.on({ method: 'POST', url: 'uploadType=resumable', status: 401, json: AUTH_ERROR, once: true });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'auth_expired',
      retryable: false,
    });
    net.on({ method: 'POST', url: 'uploadType=resumable', status: 400, json: TITLE_ERROR, once: true });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'invalid_content',
      details: { networkCode: 'invalidTitle' },
    });
    net.on({ url: 'https://media.example.com/gone.mp4', status: 404, text: 'gone' });
    await expect(
      adapter.publish(request(content({ videoUrl: 'https://media.example.com/gone.mp4' }))),
    ).rejects.toMatchObject({ category: 'media_rejected' });
  });

  // https://developers.google.com/youtube/v3/docs/errors: each reason the adapter knows, in a 400 (the status says nothing).
  it.each([
    ['quotaExceeded', 'network_rate_limited'],
    ['rateLimitExceeded', 'network_rate_limited'],
    ['userRateLimitExceeded', 'network_rate_limited'],
    ['uploadLimitExceeded', 'network_rate_limited'],
    ['dailyLimitExceeded', 'network_rate_limited'],
    ['authError', 'auth_expired'],
    ['invalidCredentials', 'auth_expired'],
    ['youtubeSignupRequired', 'auth_expired'],
    ['insufficientPermissions', 'auth_expired'],
    ['forbidden', 'auth_expired'],
    ['accountDelegationForbidden', 'auth_expired'],
    ['mediaBodyRequired', 'media_rejected'],
    ['invalidFilename', 'media_rejected'],
    ['invalidVideoFile', 'media_rejected'],
    ['unsupportedMediaType', 'media_rejected'],
    ['uploadRejected', 'media_rejected'],
    ['videoFileTooLarge', 'media_rejected'],
    ['constructor', 'invalid_content'],
  ])('should map the error reason %s to %s', async (reason, category) => {
    const error = { code: 400, message: 'Refused.', errors: [{ message: 'Refused.', domain: 'global', reason }] };
    net.on({ url: '/youtube/v3/channels', status: 400, json: { error } });
    await expect(adapter.listAccounts({ accessToken: 't' })).rejects.toMatchObject({ category });
  });

  it('should read statistics and the Analytics report', async () => {
    net.on({
      url: '/youtube/v3/videos?part=statistics&id=Ks-_Mh1QhMc',
      json: {
        items: [
          {
            id: 'Ks-_Mh1QhMc',
            statistics: { viewCount: '1200', likeCount: '30', favoriteCount: '0', commentCount: '4' },
          },
        ],
      },
    });
    const account = request(content()).account;
    await expect(adapter.getItemMetrics(account, 'Ks-_Mh1QhMc')).resolves.toEqual({
      views: 1200,
      likes: 30,
      comments: 4,
      shares: 0,
      reach: 1200,
      engagement: 34,
    });
    // https://developers.google.com/youtube/analytics/reference/reports/query (resultTable)
    net.on({
      url: 'https://youtubeanalytics.googleapis.com/v2/reports?',
      json: {
        kind: 'youtubeAnalytics#resultTable',
        columnHeaders: ['day', 'views', 'likes', 'comments', 'shares', 'subscribersGained', 'subscribersLost'].map(
          (name, i) => ({
            name,
            columnType: i ? 'METRIC' : 'DIMENSION',
            dataType: i ? 'INTEGER' : 'STRING',
          }),
        ),
        rows: [
          ['2026-01-01', 100, 5, 1, 2, 10, 0],
          ['2026-01-02', 50, 2, 0, 1, 5, 1],
        ],
      },
    });
    net.on({ url: '/youtube/v3/channels?part=statistics', json: CHANNELS_BODY });
    const days = await adapter.getDailyMetrics(account, '2026-01-01', '2026-01-02');
    expect(days).toEqual([
      { date: '2026-01-01', views: 100, reach: 100, shares: 2, engagement: 8, followers: 2470000 - 4 },
      { date: '2026-01-02', views: 50, reach: 50, shares: 1, engagement: 3, followers: 2470000 },
    ]);
    expect(net.find('youtubeanalytics')[0].url).toContain('ids=channel%3D%3DUC_x5XG1OV2P6uZZ5FSM9Ttw');
  });

  it('should validate title, description and media', () => {
    expect(adapter.validate(content({ options: {} }))).toEqual([expect.objectContaining({ field: 'youtube.title' })]);
    expect(adapter.validate(content({ options: { title: 'x'.repeat(101) } }))).toEqual([
      expect.objectContaining({ field: 'youtube.title' }),
    ]);
    expect(adapter.validate(content({ text: 'é'.repeat(2501) }))).toEqual([expect.objectContaining({ field: 'text' })]);
    expect(
      adapter.validate(content({ contentType: 'image', videoUrl: null, imageUrls: ['https://m/1.jpg'] })),
    ).toHaveLength(2);
    expect(adapter.validate(content())).toEqual([]);
  });
});

describe('YouTubeAdapter first comment (documented bodies)', () => {
  const net = new DocFetch().eachTest();
  const adapter = new YouTubeAdapter(testEndpoints(youtubeNetwork.real));
  const account = { ...CHANNEL, metadata: {} };

  it('should insert a comment thread (part=snippet) and answer the top-level comment id', async () => {
    // https://developers.google.com/youtube/v3/docs/commentThreads/insert: request needs snippet.channelId,
    // snippet.videoId, snippet.topLevelComment.snippet.textOriginal; answers a commentThread resource.
    net.on({
      method: 'POST',
      url: `${API}/youtube/v3/commentThreads?part=snippet`,
      json: {
        kind: 'youtube#commentThread',
        etag: 'MfAoT3_Kx6L5uZ0GJjJ6XWw2nPQ',
        id: 'UgzDE2tasfmrYLyNkGt4AaABAg',
        snippet: {
          channelId: 'UC_x5XG1OV2P6uZZ5FSM9Ttw',
          videoId: 'wtLJPvx7-ys',
          topLevelComment: {
            kind: 'youtube#comment',
            etag: 'nx3Y6pW1hb1TBnA_pQTWx3Z9xFE',
            id: 'UgzDE2tasfmrYLyNkGt4AaABAg',
            snippet: { textOriginal: 'Thanks for watching', videoId: 'wtLJPvx7-ys' },
          },
          canReply: true,
          totalReplyCount: 0,
          isPublic: true,
        },
      },
    });
    const res = await adapter.postComment({ account, externalId: 'wtLJPvx7-ys', text: 'Thanks for watching' });
    expect(res).toEqual({ id: 'UgzDE2tasfmrYLyNkGt4AaABAg' });
    expect(DocFetch.body(net.requests[0])).toEqual({
      snippet: {
        channelId: 'UC_x5XG1OV2P6uZZ5FSM9Ttw',
        videoId: 'wtLJPvx7-ys',
        topLevelComment: { snippet: { textOriginal: 'Thanks for watching' } },
      },
    });
    expect(adapter.authorizeUrl({ state: 's', redirectUri: 'https://a/cb', codeChallenge: 'c' })).toContain(
      encodeURIComponent('https://www.googleapis.com/auth/youtube.force-ssl'),
    );
  });

  it('should map commentsDisabled (403) to a permanent failure', async () => {
    // https://developers.google.com/youtube/v3/docs/commentThreads/insert#errors
    net.on({
      method: 'POST',
      url: '/youtube/v3/commentThreads',
      status: 403,
      json: {
        error: {
          code: 403,
          message: 'The video identified by the videoId parameter has disabled comments.',
          errors: [
            {
              message: 'The video has disabled comments.',
              domain: 'youtube.commentThread',
              reason: 'commentsDisabled',
            },
          ],
        },
      },
    });
    await expect(adapter.postComment({ account, externalId: 'v', text: 'x' })).rejects.toMatchObject({
      category: 'invalid_content',
      retryable: false,
    });
  });
});
