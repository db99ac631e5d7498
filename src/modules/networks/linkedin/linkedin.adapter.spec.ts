import { consentPage, contentOf, DocFetch, recordingRequest, testEndpoints, timeout } from '@test/support/doc-fetch';
import { PlatformError, PublishContent } from '../kit/adapter';
import { escapeLittleText, unescapeLittleText } from './linkedin-api';
import { LinkedInAdapter } from './linkedin.adapter';
import { linkedinNetwork } from './linkedin.network';

const API = 'https://api.linkedin.com';
const MEDIA = 'https://media.example.com';

/** Token answers: https://learn.microsoft.com/en-us/linkedin/shared/authentication/authorization-code-flow (step 3) */
const TOKEN_BODY = { access_token: 'AQUvlL_DYEzvT2wz1QJiEPeLioeA', expires_in: 5184000, scope: 'r_basicprofile' };
/** https://learn.microsoft.com/en-us/linkedin/shared/authentication/programmatic-refresh-tokens */
const REFRESH_BODY = {
  access_token: 'BBBB2',
  expires_in: 86399,
  refresh_token: 'CCCC3',
  refresh_token_expires_in: 525600,
};
/** https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/sign-in-with-linkedin-v2 (API request to retrieve member details) */
const USERINFO_BODY = {
  sub: '782bbtaQ',
  name: 'John Doe',
  given_name: 'John',
  family_name: 'Doe',
  picture: 'https://media.licdn-ei.com/dms/image/C5F03AQHqK8v7tB1HCQ/profile-displayphoto-shrink_100_100/0/',
  locale: 'en-US',
  email: 'doe@email.com',
  email_verified: true,
};
/** https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-access-control-by-role (find a member's organization access control information) */
const ACLS_BODY = {
  paging: { count: 10, start: 0, links: [] },
  elements: [
    {
      roleAssignee: 'urn:li:person:782bbtaQ',
      state: 'APPROVED',
      role: 'ADMINISTRATOR',
      organization: 'urn:li:organization:2414183',
    },
    {
      roleAssignee: 'urn:li:person:782bbtaQ',
      state: 'APPROVED',
      role: 'ADMINISTRATOR',
      organization: 'urn:li:organization:5583111',
    },
  ],
};
/** https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-lookup-api (retrieve an administered organization) */
const ORG_BODY = (id: number, name: string, vanity: string) => ({
  vanityName: vanity,
  localizedName: name,
  id,
  localizedWebsite: 'https://www.example.com',
});
/** https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api (initialize image upload response) */
const IMAGE_INIT_BODY = {
  value: {
    uploadUrlExpiresAt: 1650567510704,
    uploadUrl:
      'https://www.linkedin.com/dms-uploads/C4E10AQFoyyAjHPMQuQ/uploaded-image/0?ca=vector_ads&cn=uploads&m=AQJbrN86Zm265gAAAXc_w2_e3eWwt3Sjq9DhWqTQ2FqE1k9w_wvGPOLySg&app=1953784&sync=0&v=beta&ut=2H-IhpbfXrRow1',
    image: 'urn:li:image:C4E10AQFoyyAjHPMQuQ',
  },
};
/** https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api (initialize video upload response; byte ranges shrunk to a 10-byte test file) */
const VIDEO_INIT_BODY = {
  value: {
    uploadUrlsExpireAt: Date.now() + 3_600_000,
    video: 'urn:li:video:C5505AQH-oV1qvnFtKA',
    uploadInstructions: [
      {
        uploadUrl: 'https://www.linkedin.com/dms-uploads/C5505AQH-oV1qvnFtKA/uploadedVideo?sau=part1',
        lastByte: 5,
        firstByte: 0,
      },
      {
        uploadUrl: 'https://www.linkedin.com/dms-uploads/C5505AQH-oV1qvnFtKA/uploadedVideo?sau=part2',
        lastByte: 9,
        firstByte: 6,
      },
    ],
    uploadToken: '',
    thumbnailUploadUrl: '',
  },
};
/** Error body: https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling (sample response) */
const EMPTY_TOKEN_ERROR = { message: 'Empty oauth2_access_token', serviceErrorCode: 401, status: 401 };
/** The Videos API page's answer to a caller without permission on the video's owner. */
const VIDEO_FORBIDDEN = {
  message: 'Accessing this video resource is forbidden. Please check your permissions for this resource',
  status: 403,
};

const POST_URN = 'urn:li:share:6844785523593134080';

const content = contentOf({ text: 'Hello #LinkedIn (test)' });
const ORG = { platformAccountId: 'urn:li:organization:2414183', accessToken: 'AQUvlL', metadata: {} };
const request = (c: PublishContent, publishState?: Record<string, unknown>) => recordingRequest(ORG, c, publishState);

describe('LinkedInAdapter (documented bodies)', () => {
  const net = new DocFetch().eachTest();
  const adapter = new LinkedInAdapter(testEndpoints(linkedinNetwork.real), { pollDelaysMs: [0, 0] });

  it('should build the consent URL on www.linkedin.com/oauth/v2/authorization', () => {
    const { origin, pathname, searchParams } = consentPage(adapter);
    expect(origin + pathname).toBe('https://www.linkedin.com/oauth/v2/authorization');
    expect(Object.fromEntries(searchParams)).toMatchObject({ response_type: 'code', code_challenge_method: 'S256' });
    expect(searchParams.get('scope')).toContain('w_member_social');
  });

  it('should exchange a code and refresh with the documented token answers', async () => {
    net.on({ method: 'POST', url: 'https://www.linkedin.com/oauth/v2/accessToken', json: TOKEN_BODY, once: true });
    net.on({ method: 'POST', url: 'https://www.linkedin.com/oauth/v2/accessToken', json: REFRESH_BODY, once: true });
    const tokens = await adapter.exchangeCode({ code: 'c', redirectUri: 'https://app.example/cb', codeVerifier: 'v' });
    expect(tokens).toMatchObject({
      accessToken: 'AQUvlL_DYEzvT2wz1QJiEPeLioeA',
      refreshToken: null,
      scopes: ['r_basicprofile'],
    });
    expect(tokens.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 5_000_000_000);
    expect(DocFetch.body(net.requests[0])).toMatchObject({
      grant_type: 'authorization_code',
      code: 'c',
      client_id: 'client-id',
      client_secret: 'client-secret',
    });
    const refreshed = await adapter.refresh({ accessToken: 'x', refreshToken: 'AAAA1' });
    expect(refreshed).toMatchObject({ accessToken: 'BBBB2', refreshToken: 'CCCC3' });
    await expect(adapter.refresh({ accessToken: 'x', refreshToken: null })).rejects.toMatchObject({
      category: 'auth_expired',
    });
  });

  it('should list the member and the organisations the member administers', async () => {
    net.on({ url: `${API}/v2/userinfo`, json: USERINFO_BODY });
    net.on({ url: '/rest/organizationAcls?q=roleAssignee', json: ACLS_BODY });
    net.on({ url: '/rest/organizations/2414183', json: ORG_BODY(2414183, 'LinkedIn', 'linkedin') });
    net.on({ url: '/rest/organizations/5583111', json: ORG_BODY(5583111, 'Example Org', 'example-org') });
    const accounts = await adapter.listAccounts({ accessToken: 't' });
    expect(accounts.map((a) => [a.platformAccountId, a.name])).toEqual([
      ['urn:li:person:782bbtaQ', 'John Doe'],
      ['urn:li:organization:2414183', 'LinkedIn'],
      ['urn:li:organization:5583111', 'Example Org'],
    ]);
    const acl = net.find('/rest/organizationAcls')[0];
    expect(acl.headers['x-restli-protocol-version']).toBe('2.0.0');
    expect(acl.headers['linkedin-version']).toMatch(/^\d{6}$/);
  });

  it('should list the member alone when the grant has no organisation permission', async () => {
    net.on({ url: `${API}/v2/userinfo`, json: USERINFO_BODY });
    net.on({
      url: '/rest/organizationAcls?q=roleAssignee',
      status: 403,
      json: {
        status: 403,
        serviceErrorCode: 100,
        code: 'ACCESS_DENIED',
        message: 'Not enough permissions to access: organizationAcls.FINDER-roleAssignee.20240101',
      },
    });
    await expect(adapter.listAccounts({ accessToken: 't' })).resolves.toEqual([
      expect.objectContaining({ platformAccountId: 'urn:li:person:782bbtaQ' }),
    ]);
  });

  it('should upload an image and take the post id from the x-restli-id header', async () => {
    net.on({ url: `${MEDIA}/a.png`, text: 'PNGDATA', headers: { 'content-type': 'image/png' } });
    net.on({ method: 'POST', url: '/rest/images?action=initializeUpload', json: IMAGE_INIT_BODY });
    net.on({ method: 'PUT', url: 'https://www.linkedin.com/dms-uploads/', status: 201 });
    net.on({ method: 'POST', url: `${API}/rest/posts`, status: 201, headers: { 'x-restli-id': POST_URN } });
    const req = request(content({ contentType: 'image', imageUrls: [`${MEDIA}/a.png`] }));
    const result = await adapter.publish(req);
    expect(result).toEqual({ externalId: POST_URN, url: `https://www.linkedin.com/feed/update/${POST_URN}/` });
    const post = DocFetch.body(net.find('/rest/posts', 'POST')[0]);
    expect(post).toMatchObject({
      author: 'urn:li:organization:2414183',
      lifecycleState: 'PUBLISHED',
      content: { media: { id: 'urn:li:image:C4E10AQFoyyAjHPMQuQ' } },
    });
    expect(post.commentary).toBe('Hello \\#LinkedIn \\(test\\)');
    // The image URN was saved before the post call, and the post attempt before it was sent.
    expect(req.saved[0]).toMatchObject({ images: ['urn:li:image:C4E10AQFoyyAjHPMQuQ'] });
    expect(req.saved.at(-2)).toHaveProperty('postAttemptedAt');
    expect(req.saved.at(-1)).toMatchObject({ postUrn: POST_URN });
  });

  it('should upload a video in parts, finalize it with the part ETags and wait until AVAILABLE', async () => {
    net.on({ url: `${MEDIA}/v.mp4`, text: '0123456789', headers: { 'content-type': 'video/mp4' } });
    net.on({ method: 'POST', url: '/rest/videos?action=initializeUpload', json: VIDEO_INIT_BODY });
    net.on({ method: 'PUT', url: 'sau=part1', headers: { etag: '/abc1' } });
    net.on({ method: 'PUT', url: 'sau=part2', headers: { etag: '/abc2' } });
    net.on({ method: 'POST', url: '/rest/videos?action=finalizeUpload', status: 200 });
    net.on({
      method: 'GET',
      url: '/rest/videos/urn%3Ali%3Avideo%3AC5505AQH-oV1qvnFtKA',
      json: { status: 'PROCESSING' },
      once: true,
    });
    net.on({
      method: 'GET',
      url: '/rest/videos/urn%3Ali%3Avideo%3AC5505AQH-oV1qvnFtKA',
      json: { status: 'AVAILABLE' },
    });
    net.on({
      method: 'POST',
      url: `${API}/rest/posts`,
      status: 201,
      headers: { 'x-restli-id': 'urn:li:ugcPost:68447855235931240' },
    });
    const result = await adapter.publish(
      request(content({ contentType: 'video', videoUrl: `${MEDIA}/v.mp4`, options: { title: 'Demo' } })),
    );
    expect(result.externalId).toBe('urn:li:ugcPost:68447855235931240');
    expect(net.find('sau=part1')[0].body).toEqual(new TextEncoder().encode('012345'));
    expect(DocFetch.body(net.find('finalizeUpload')[0])).toEqual({
      finalizeUploadRequest: {
        video: 'urn:li:video:C5505AQH-oV1qvnFtKA',
        uploadToken: '',
        uploadedPartIds: ['/abc1', '/abc2'],
      },
    });
    expect(DocFetch.body(net.find('/rest/posts', 'POST')[0]).content).toEqual({
      media: { id: 'urn:li:video:C5505AQH-oV1qvnFtKA', title: 'Demo' },
    });
  });

  it('should map the documented error bodies to categories with the network message', async () => {
    net.on({ url: `${API}/v2/userinfo`, status: 401, json: EMPTY_TOKEN_ERROR, once: true });
    await expect(adapter.listAccounts({ accessToken: '' })).rejects.toMatchObject({
      message: 'Empty oauth2_access_token',
      category: 'auth_expired',
      retryable: false,
    });
    net.on({ url: `${MEDIA}/v.mp4`, text: '0123456789' });
    net.on({ method: 'POST', url: '/rest/videos?action=initializeUpload', status: 403, json: VIDEO_FORBIDDEN });
    await expect(
      adapter.publish(request(content({ contentType: 'video', videoUrl: `${MEDIA}/v.mp4` }))),
    ).rejects.toMatchObject({ category: 'auth_expired', details: { status: 403 } });
    net.on({
      method: 'POST',
      url: `${API}/rest/posts`,
      status: 429,
      json: {
        status: 429,
        serviceErrorCode: 101,
        code: 'TOO_MANY_REQUESTS',
        message: 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
      },
      once: true,
    });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'network_rate_limited',
      retryable: true,
      details: { networkCode: 'TOO_MANY_REQUESTS' },
    });
    net.on({
      method: 'POST',
      url: `${API}/rest/posts`,
      status: 422,
      json: {
        message: 'ERROR :: /commentary :: field is required but not found and has no default value\n',
        status: 422,
      },
      once: true,
    });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'invalid_content',
      retryable: false,
    });
    net.on({
      method: 'POST',
      url: `${API}/rest/posts`,
      status: 504,
      text: '<html>Gateway Time-out</html>',
      once: true,
    });
    await expect(adapter.publish(request(content()))).rejects.toMatchObject({
      category: 'network_error',
      retryable: true,
    });
  });

  it("should report a lost answer of the post call as an unknown outcome, then find the post among the author's latest", async () => {
    net.on({ method: 'POST', url: `${API}/rest/posts`, error: timeout() });
    const req = request(content());
    const err = await adapter.publish(req).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ category: 'unknown_outcome' });
    const state = req.saved.at(-1)!;
    net.on({
      method: 'GET',
      url: `/rest/posts?author=urn%3Ali%3Aorganization%3A2414183&q=author`,
      json: {
        paging: { start: 0, count: 20 },
        elements: [
          {
            id: POST_URN,
            author: 'urn:li:organization:2414183',
            commentary: escapeLittleText('Hello #LinkedIn (test)'),
            createdAt: Date.now(),
          },
        ],
      },
    });
    await expect(adapter.findPublished({ ...req, publishState: state })).resolves.toMatchObject({
      externalId: POST_URN,
    });
    await expect(adapter.findPublished({ ...req, publishState: {} })).resolves.toBeNull();
    // A new attempt looks first: the post found is the answer, never posted again.
    await expect(adapter.publish(request(content(), state))).resolves.toMatchObject({ externalId: POST_URN });
    expect(net.find('/rest/posts', 'POST')).toHaveLength(1);
  });

  it("should validate LinkedIn's text and image limits", () => {
    expect(adapter.validate(content({ text: 'x'.repeat(3001) }))).toEqual([expect.objectContaining({ field: 'text' })]);
    expect(
      adapter.validate(
        content({ contentType: 'image', imageUrls: Array.from({ length: 21 }, (_, i) => `${MEDIA}/${i}.png`) }),
      ),
    ).toEqual([expect.objectContaining({ field: 'imageUrls' })]);
    expect(
      adapter.validate(content({ contentType: 'image', imageUrls: [`${MEDIA}/1.png`, `${MEDIA}/2.png`] })),
    ).toEqual([]);
    expect(adapter.validate(content({ contentType: 'video' }))).toEqual([
      expect.objectContaining({ field: 'videoUrl' }),
    ]);
  });

  it('should round-trip little-text escaping', () => {
    const text = 'a #tag @x (y) [z] {w} <v> *u* _t_ ~s~ | \\';
    expect(unescapeLittleText(escapeLittleText(text))).toBe(text);
  });
});

describe('LinkedInAdapter first comment (documented bodies)', () => {
  const net = new DocFetch().eachTest();
  const adapter = new LinkedInAdapter(testEndpoints(linkedinNetwork.real), { pollDelaysMs: [0, 0] });
  const account = ORG;

  it('should create a comment with { actor, object, message.text } and answer its URN', async () => {
    // https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api (Create a Comment)
    const urn = 'urn:li:share:6844785523593134080';
    const commentUrn = 'urn:li:comment:(urn:li:activity:6844785523593134080,6847231234567890944)';
    net.on({
      method: 'POST',
      url: `${API}/rest/socialActions/${encodeURIComponent(urn)}/comments`,
      status: 201,
      json: {
        actor: 'urn:li:organization:2414183',
        commentUrn,
        created: { actor: 'urn:li:organization:2414183', time: 1632432234000 },
        id: '6847231234567890944',
        lastModified: { actor: 'urn:li:organization:2414183', time: 1632432234000 },
        message: { text: 'Link in bio' },
        object: urn,
        $URN: commentUrn,
      },
      headers: { 'x-restli-id': commentUrn },
    });
    const res = await adapter.postComment({ account, externalId: urn, text: 'Link in bio' });
    expect(res).toEqual({ id: commentUrn });
    const [req] = net.requests;
    expect(req.headers['linkedin-version']).toMatch(/^\d{6}$/);
    expect(DocFetch.body(req)).toEqual({
      actor: 'urn:li:organization:2414183',
      object: urn,
      message: { text: 'Link in bio' },
    });
  });

  it('should report a time-out of the comment call as an unknown outcome', async () => {
    net.on({ method: 'POST', url: '/comments', error: timeout() });
    await expect(adapter.postComment({ account, externalId: 'urn:li:share:1', text: 'x' })).rejects.toMatchObject({
      category: 'unknown_outcome',
      retryable: false,
    });
  });
});
