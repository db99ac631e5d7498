import { consentPage, contentOf, DocFetch, recordingRequest, testEndpoints, timeout } from '@test/support/doc-fetch';
import { PublishContent } from '../kit/adapter';
import { failReasonError, publicPostIds } from './tiktok-api';
import { TikTokAdapter } from './tiktok.adapter';
import { tiktokNetwork } from './tiktok.network';

const API = 'https://open.tiktokapis.com';

/** https://developers.tiktok.com/doc/oauth-user-access-token-management (fetch an access token: response) */
const TOKEN_BODY = {
  access_token: 'act.example12345Example12345Example',
  expires_in: 86400,
  open_id: 'afd97af1-b87b-48b9-ac98-410aghda5344',
  refresh_expires_in: 31536000,
  refresh_token: 'rft.example12345Example12345Example',
  scope: 'user.info.basic,video.list',
  token_type: 'Bearer',
};
/** Same page, the error answer. */
const TOKEN_ERROR = {
  error: 'invalid_request',
  error_description: 'The request parameters are malformed.',
  log_id: '20230525211650DEB32C6DE3C3A1041A5B',
};
/** https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info (response example) */
const USER_INFO_BODY = {
  data: {
    user: {
      avatar_url:
        'https://p19-sign.tiktokcdn-us.com/tos-useast5-avt-0068-tx/b17f0e4b3a4f4a50993cf72cda8b88b8~c5_168x168.jpeg',
      open_id: '723f24d7-e717-40f8-a2b6-cb8464cd23b4',
      union_id: 'c9c60f44-a68e-4f5d-84dd-ce22faeb0ba1',
      display_name: 'Tik Toker',
    },
  },
  error: { code: 'ok', message: '', log_id: '20220829194722CBE87ED59D524E727021' },
};
/** https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info (response example) */
const CREATOR_INFO_BODY = {
  data: {
    creator_avatar_url: 'https://lf16-tt4d.tiktokcdn.com/obj/tiktok-open-platform/8d5740ac3844be417beeacd0df75aef1',
    creator_username: 'tiktok',
    creator_nickname: 'TikTok Official',
    privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    comment_disabled: false,
    duet_disabled: false,
    stitch_disabled: true,
    max_video_post_duration_sec: 300,
  },
  error: { code: 'ok', message: '', log_id: '202210112248442CB9319E1FB30C1073F1' },
};
/** https://developers.tiktok.com/doc/content-posting-api-reference-direct-post (initialize the posting request: response) */
const INIT_BODY = {
  data: { publish_id: 'v_pub_url~v2.123456789' },
  error: { code: 'ok', message: '', log_id: '202210112248442CB9319E1FB30C1073F3' },
};
/** https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status (response example; the raw text keeps int64 ids exact) */
const STATUS_FAILED = `{"data":{"status":"FAILED","fail_reason":"picture_size_check_failed","publicaly_available_post_id":[],"uploaded_bytes":10000},"error":{"code":"ok","message":"","log_id":"202210112248442CB9319E1FB30C1073F3"}}`;
const STATUS_PROCESSING = `{"data":{"status":"PROCESSING_DOWNLOAD","downloaded_bytes":5000},"error":{"code":"ok","message":"","log_id":"202210112248442CB9319E1FB30C1073F4"}}`;
const STATUS_COMPLETE = `{"data":{"status":"PUBLISH_COMPLETE","publicaly_available_post_id":[7234567890123456789],"downloaded_bytes":10000},"error":{"code":"ok","message":"","log_id":"202210112248442CB9319E1FB30C1073F5"}}`;
/** Error envelope of the Content Posting API ("Error codes" table of the direct post page). */
const errorBody = (code: string, message: string) => ({
  data: {},
  error: { code, message, log_id: '20240829190020EBE0D84CCEA6DE000CB6' },
});

const content = contentOf({ contentType: 'video', text: 'Dance #fyp', videoUrl: 'https://media.example.com/v.mp4' });
const ACCOUNT = { platformAccountId: '723f24d7-e717-40f8-a2b6-cb8464cd23b4', accessToken: 'act.example' };
const request = (c: PublishContent, publishState?: Record<string, unknown>) =>
  recordingRequest({ ...ACCOUNT, metadata: { username: 'tiktoker' } }, c, publishState);

describe('TikTokAdapter (documented bodies)', () => {
  const net = new DocFetch().eachTest();
  const adapter = new TikTokAdapter(testEndpoints(tiktokNetwork.real), { pollDelaysMs: [0, 0, 0] });

  it('should build the consent URL on www.tiktok.com/v2/auth/authorize/', () => {
    const url = consentPage(adapter);
    expect(url.origin + url.pathname).toBe('https://www.tiktok.com/v2/auth/authorize/');
    expect(url.searchParams.get('client_key')).toBe('client-id');
    expect(url.searchParams.get('scope')).toContain('video.publish');
  });

  it('should exchange and refresh tokens with the documented answers, and reject a refused grant as auth_expired', async () => {
    net.on({ method: 'POST', url: `${API}/v2/oauth/token/`, json: TOKEN_BODY, once: true });
    const tokens = await adapter.exchangeCode({ code: 'c', redirectUri: 'https://app.example/cb', codeVerifier: 'v' });
    expect(tokens).toMatchObject({
      accessToken: TOKEN_BODY.access_token,
      refreshToken: TOKEN_BODY.refresh_token,
      scopes: ['user.info.basic', 'video.list'],
    });
    expect(tokens.refreshExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 31_000_000_000);
    expect(DocFetch.body(net.requests[0])).toMatchObject({
      client_key: 'client-id',
      grant_type: 'authorization_code',
      code_verifier: 'v',
    });
    net.on({ method: 'POST', url: `${API}/v2/oauth/token/`, status: 400, json: TOKEN_ERROR, once: true });
    await expect(adapter.refresh({ accessToken: 'a', refreshToken: 'r' })).rejects.toMatchObject({
      category: 'auth_expired',
      details: { networkCode: 'invalid_request' },
    });
  });

  it('should list the one creator account of a grant', async () => {
    net.on({ url: `${API}/v2/user/info/?fields=`, json: USER_INFO_BODY });
    const [account, ...rest] = await adapter.listAccounts({ accessToken: 't' });
    expect(rest).toHaveLength(0);
    expect(account).toMatchObject({
      platformAccountId: '723f24d7-e717-40f8-a2b6-cb8464cd23b4',
      name: 'Tik Toker',
      avatarUrl: USER_INFO_BODY.data.user.avatar_url,
    });
  });

  it('should init a PULL_FROM_URL video post, save the publish_id and poll until PUBLISH_COMPLETE', async () => {
    net.on({ method: 'POST', url: '/v2/post/publish/creator_info/query/', json: CREATOR_INFO_BODY });
    net.on({ method: 'POST', url: '/v2/post/publish/video/init/', json: INIT_BODY });
    net.on({ method: 'POST', url: '/v2/post/publish/status/fetch/', text: STATUS_PROCESSING, once: true });
    net.on({ method: 'POST', url: '/v2/post/publish/status/fetch/', text: STATUS_COMPLETE });
    const req = request(content());
    const result = await adapter.publish(req);
    expect(result).toEqual({
      externalId: '7234567890123456789',
      url: 'https://www.tiktok.com/@tiktoker/video/7234567890123456789',
    });
    expect(DocFetch.body(net.find('/video/init/')[0])).toEqual({
      post_info: {
        title: 'Dance #fyp',
        privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_duet: false,
        disable_comment: false,
        disable_stitch: false,
      },
      source_info: { source: 'PULL_FROM_URL', video_url: 'https://media.example.com/v.mp4' },
    });
    expect(req.saved.map((s) => Object.keys(s).sort())).toEqual([
      ['initAttemptedAt'],
      ['initAttemptedAt', 'publishId'],
      ['initAttemptedAt', 'postId', 'publishId'],
    ]);
    expect(net.find('/status/fetch/')).toHaveLength(2);
  });

  it('should post photos through content/init with photo_images', async () => {
    net.on({ method: 'POST', url: '/creator_info/query/', json: CREATOR_INFO_BODY });
    net.on({
      method: 'POST',
      url: '/v2/post/publish/content/init/',
      json: { ...INIT_BODY, data: { publish_id: 'p_pub_url~v2.1' } },
    });
    net.on({ method: 'POST', url: '/status/fetch/', text: STATUS_COMPLETE });
    await adapter.publish(
      request(
        content({
          contentType: 'image',
          videoUrl: null,
          imageUrls: ['https://media.example.com/1.jpg', 'https://media.example.com/2.jpg'],
          options: { privacyLevel: 'SELF_ONLY' },
        }),
      ),
    );
    expect(DocFetch.body(net.find('/content/init/')[0])).toMatchObject({
      post_mode: 'DIRECT_POST',
      media_type: 'PHOTO',
      post_info: { description: 'Dance #fyp', privacy_level: 'SELF_ONLY' },
      source_info: {
        source: 'PULL_FROM_URL',
        photo_cover_index: 0,
        photo_images: ['https://media.example.com/1.jpg', 'https://media.example.com/2.jpg'],
      },
    });
  });

  it('should fail with the fail_reason when the publish ends FAILED, and findPublished then says not published', async () => {
    net.on({ method: 'POST', url: '/creator_info/query/', json: CREATOR_INFO_BODY });
    net.on({ method: 'POST', url: '/video/init/', json: INIT_BODY });
    net.on({ method: 'POST', url: '/status/fetch/', text: STATUS_FAILED });
    const req = request(content());
    await expect(adapter.publish(req)).rejects.toMatchObject({
      category: 'media_rejected',
      details: { networkCode: 'picture_size_check_failed' },
    });
    await expect(adapter.findPublished({ ...req, publishState: req.saved.at(-1)! })).resolves.toBeNull();
  });

  it('should map the documented error codes to categories', async () => {
    net.on({
      method: 'POST',
      url: '/creator_info/query/',
      status: 401,
      json: errorBody('access_token_invalid', 'The access token is invalid or not found in the request.'),
      once: true,
    });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'auth_expired',
      message: 'The access token is invalid or not found in the request.',
    });
    net.on({ method: 'POST', url: '/creator_info/query/', json: CREATOR_INFO_BODY });
    net.on({
      method: 'POST',
      url: '/video/init/',
      status: 429,
      json: errorBody('rate_limit_exceeded', 'API rate limit was exceeded, only 6 requests are allowed per minute.'),
      once: true,
    });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'network_rate_limited',
      retryable: true,
    });
    net.on({
      method: 'POST',
      url: '/video/init/',
      status: 403,
      json: errorBody('spam_risk_too_many_posts', 'The daily post cap of this creator has been reached.'),
      once: true,
    });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'network_rate_limited',
      details: { networkCode: 'spam_risk_too_many_posts' },
    });
    net.on({
      method: 'POST',
      url: '/video/init/',
      status: 403,
      json: errorBody('url_ownership_unverified', 'The domain or URL prefix of the video_url is not verified.'),
      once: true,
    });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'media_rejected',
      retryable: false,
    });
    await expect(
      adapter.publish(request(content({ options: { privacyLevel: 'FOLLOWER_OF_CREATOR' } }))),
    ).rejects.toMatchObject({ category: 'invalid_content' });
  });

  // Each error code the adapter knows, in a 400 (the status says nothing).
  it.each([
    ['access_token_invalid', 'auth_expired'],
    ['scope_not_authorized', 'auth_expired'],
    ['scope_permission_missed', 'auth_expired'],
    ['token_not_authorized_for_specified_open_id', 'auth_expired'],
    ['rate_limit_exceeded', 'network_rate_limited'],
    ['spam_risk_too_many_posts', 'network_rate_limited'],
    ['spam_risk_too_many_pending_share', 'network_rate_limited'],
    ['reached_active_user_cap', 'network_rate_limited'],
    ['url_ownership_unverified', 'media_rejected'],
    ['internal_error', 'network_error'],
  ])('should map the error code %s to %s', async (code, category) => {
    net.on({ method: 'POST', url: '/creator_info/query/', status: 400, json: errorBody(code, 'Refused.') });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({ category });
  });

  it.each([
    ['file_format_check_failed', 'media_rejected'],
    ['duration_check_failed', 'media_rejected'],
    ['frame_rate_check_failed', 'media_rejected'],
    ['picture_size_check_failed', 'media_rejected'],
    ['video_pull_failed', 'media_rejected'],
    ['photo_pull_failed', 'media_rejected'],
    ['auth_removed', 'auth_expired'],
    ['spam_risk_too_many_posts', 'network_rate_limited'],
    ['spam_risk_user_banned_from_posting', 'invalid_content'],
    ['spam_risk_text', 'invalid_content'],
    ['spam_risk', 'invalid_content'],
    ['publish_cancelled', 'invalid_content'],
    ['internal', 'network_error'],
  ])('should map the fail_reason %s to %s', (reason, category) => {
    expect(failReasonError(reason)).toMatchObject({ category, details: { networkCode: reason } });
  });

  it('should classify an undocumented code by status, even one named like an Object property', async () => {
    net.on({ method: 'POST', url: '/creator_info/query/', json: CREATOR_INFO_BODY });
    net.on({ method: 'POST', url: '/video/init/', status: 503, json: errorBody('constructor', 'Busy.'), once: true });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'network_error',
      retryable: true,
      details: { networkCode: 'constructor' },
    });
    net.on({ method: 'POST', url: '/video/init/', json: INIT_BODY });
    net.on({
      method: 'POST',
      url: '/status/fetch/',
      text: STATUS_FAILED.replace('picture_size_check_failed', 'toString'),
    });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'invalid_content',
      details: { networkCode: 'toString' },
    });
  });

  it('should treat a lost init answer as an unknown outcome and resume polling a saved publish_id', async () => {
    net.on({ method: 'POST', url: '/creator_info/query/', json: CREATOR_INFO_BODY });
    net.on({ method: 'POST', url: '/video/init/', error: timeout() });
    const req = request(content());
    await expect(adapter.publish(req)).rejects.toMatchObject({ category: 'unknown_outcome' });
    expect(req.saved.at(-1)).toHaveProperty('initAttemptedAt');
    // The answer is lost but the creator's video list shows the post.
    net.on({
      method: 'POST',
      url: '/v2/video/list/',
      json: {
        data: {
          videos: [{ id: '7234567890123456780', title: 'Dance #fyp', create_time: Math.floor(Date.now() / 1000) }],
          cursor: 0,
          has_more: false,
        },
        error: { code: 'ok', message: '', log_id: 'x' },
      },
    });
    await expect(adapter.findPublished({ ...req, publishState: req.saved.at(-1)! })).resolves.toMatchObject({
      externalId: '7234567890123456780',
    });
    // With a saved publish_id a new attempt polls instead of posting again.
    net.on({ method: 'POST', url: '/status/fetch/', text: STATUS_COMPLETE });
    await expect(adapter.publish(request(content(), { publishId: 'v_pub_url~v2.123456789' }))).resolves.toMatchObject({
      externalId: '7234567890123456789',
    });
    expect(net.find('/video/init/')).toHaveLength(1);
  });

  it('should read int64 post ids exactly', () => {
    expect(publicPostIds(STATUS_COMPLETE)).toEqual(['7234567890123456789']);
    expect(publicPostIds(STATUS_FAILED)).toEqual([]);
  });

  it("should validate TikTok's media and caption rules", () => {
    expect(adapter.validate(content({ contentType: 'text', videoUrl: null }))).toEqual([
      expect.objectContaining({ field: 'contentType' }),
    ]);
    expect(adapter.validate(content({ text: 'x'.repeat(2201) }))).toEqual([expect.objectContaining({ field: 'text' })]);
    expect(
      adapter.validate(
        content({
          contentType: 'image',
          videoUrl: null,
          imageUrls: Array.from({ length: 36 }, (_, i) => `https://m/${i}.jpg`),
        }),
      ),
    ).toEqual([expect.objectContaining({ field: 'imageUrls' })]);
    expect(adapter.validate(content())).toEqual([]);
  });

  it('should read the daily post cap from creator_info: spam_risk_too_many_posts means reached', async () => {
    const account = { platformAccountId: 'open-id', accessToken: 'act.token', metadata: {} };
    net.on({ method: 'POST', url: '/v2/post/publish/creator_info/query/', json: CREATOR_INFO_BODY, once: true });
    await expect(adapter.publishingUsage(account)).resolves.toEqual({ used: null, limit: null, exhausted: false });
    expect(net.requests[0].headers).toMatchObject({ authorization: 'Bearer act.token' });
    // Error code of https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info
    net.on({
      method: 'POST',
      url: '/v2/post/publish/creator_info/query/',
      status: 403,
      json: errorBody('spam_risk_too_many_posts', 'The daily post cap from the API is reached for the current user.'),
      once: true,
    });
    await expect(adapter.publishingUsage(account)).resolves.toMatchObject({ exhausted: true });
  });
});
