import { Injectable } from '@nestjs/common';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { addDays, dayOf, daysBetween, unixDay } from '../kit/days';
import { enforceMagicWords, MagicErrors, SANDBOX_RATE_LIMIT_SECONDS } from '../kit/sandbox/magic-words';
import type { SandboxAuthSpec } from '../kit/sandbox/sandbox-auth';
import { addOwnComment, commentRefusal } from '../kit/sandbox/sandbox-comments';
import { SandboxHttpError, withRetryAfter } from '../kit/sandbox/sandbox-http';
import { oauth2Login, simulator } from '../kit/sandbox/sandbox-login';
import { dailyAccountMetrics, itemMetrics, stableInt } from '../kit/sandbox/sandbox-metrics';
import type { OAuthFailure } from '../kit/sandbox/sandbox-oauth';
import { pageSize, Q, qs, readRawBody } from '../kit/sandbox/sandbox-request';
import { routesOf } from '../kit/sandbox/sandbox-routes';
import { SimulatorState } from '../kit/sandbox/sandbox-state';
import { liDate, unescapeLittleText } from './linkedin-api';
import { LINKEDIN_RULES } from './linkedin.adapter';

/** LinkedIn's error body `{ status, serviceErrorCode, code, message }` (JSON leaves out the fields not given). */
function liFail(status: number, message: string, code?: string, serviceErrorCode?: number): SandboxHttpError {
  return new SandboxHttpError(status, { status, serviceErrorCode, code, message });
}
/** Rest.li's answers for a bad argument, a missing resource, a resource the member may not touch, a bad body. */
const illegal = (message: string) => liFail(400, message, 'ILLEGAL_ARGUMENT');
const notFound = (message: string) => liFail(404, message, 'NOT_FOUND');
const denied = (what: string) => liFail(403, `Not enough permissions to access: ${what}`, 'ACCESS_DENIED', 100);
const unprocessable = (path: string, problem: string) => liFail(422, `ERROR :: /${path} :: ${problem}\n`);
const REQUIRED = 'field is required but not found and has no default value';
const throttled = (limit: string) =>
  `Resource level throttle ${limit} DAY limit for calls to this resource is reached.`;

/** A FINDER call (`?q=<name>`) must name the finder the route serves. */
function finder(q: Q, name: string): void {
  if (qs(q.q) !== name) throw illegal(`Invalid finder: ${qs(q.q)}`);
}

/** A Rest.li collection answer (`count` defaults to 10, LinkedIn's page size). */
const collection = (elements: unknown[], count = 10) => ({ paging: { count, start: 0, links: [] }, elements });

type LiMember = ReturnType<typeof memberOf>;

type LiImage = { urn: string; owner: string; status: 'WAITING_UPLOAD' | 'AVAILABLE' };
type LiVideoPart = { firstByte: number; lastByte: number; etag: string | null };
type LiVideo = { urn: string; owner: string; parts: LiVideoPart[]; finalizedAt: string | null };

type LiPost = ReturnType<typeof newPost>;

/** Videos leave PROCESSING this long after finalizeUpload (the adapter polls at least once). */
const LI_VIDEO_PROCESSING_MS = 500;
const LI_PART_BYTES = 4 * 1024 * 1024;

const ORG_NAMES = ['Sandbox Labs', 'Sandbox Media'];

/** LinkedIn's 401 for each way a token fails: [message, code, serviceErrorCode]; any other is an invalid token. */
const LI_AUTH_ERRORS: Partial<Record<OAuthFailure | 'missing_token', [string, string | undefined, number]>> = {
  missing_token: ['Empty oauth2_access_token', undefined, 401],
  expired_token: ['The token used in the request has expired', 'EXPIRED_ACCESS_TOKEN', 65601],
  revoked_token: ['The token used in the request has been revoked by the user', 'REVOKED_ACCESS_TOKEN', 65602],
};

/** The member behind a bearer token, with the two organisations every sandbox member administers. */
const LI_MEMBER: SandboxAuthSpec<LiMember> = {
  network: 'linkedin',
  fail: (reason) => liFail(401, ...(LI_AUTH_ERRORS[reason] ?? ['Invalid access token', 'INVALID_ACCESS_TOKEN', 65600])),
  caller: (info) => memberOf(info.grant.userId),
};

/** A versioned /rest call's member: like LinkedIn's, it needs both version headers first. */
const LI_REST: SandboxAuthSpec<LiMember> = {
  ...LI_MEMBER,
  check: (req) => {
    const version = req.header('linkedin-version');
    const missing = 'A version must be present. Please specify a version by adding the LinkedIn-Version header.';
    if (!version) throw liFail(400, missing, 'VERSION_MISSING');
    if (!/^\d{6}(\.\d{2})?$/.test(version))
      throw liFail(426, `Requested version ${version} is not active`, 'NONEXISTENT_VERSION');
    if (req.header('x-restli-protocol-version') !== '2.0.0')
      throw illegal('The X-Restli-Protocol-Version header must be 2.0.0 for this API.');
  },
};

const ACCESS_TTL = 60 * 24 * 3600;
const REFRESH_TTL = 365 * 24 * 3600;
const extra = () => ({ refresh_token_expires_in: REFRESH_TTL });
const INVALID_CODE =
  'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists';

/** LinkedIn's OAuth 2.0: authorization_code and refresh_token grants (refresh tokens as LinkedIn grants them to partners). */
const LINKEDIN_LOGIN = oauth2Login({
  network: 'linkedin',
  appLabel: 'LinkedIn app',
  authorize: 'oauth/v2/authorization',
  token: 'oauth/v2/accessToken',
  errors: () => ({
    invalidClient: [401, 'invalid_client', 'Client authentication failed'],
    unsupportedGrant: [400, 'unsupported_grant_type', 'The grant_type is not supported'],
    invalidCode: [400, 'invalid_request', INVALID_CODE],
    invalidRefresh: [400, 'invalid_request', 'The provided refresh token is invalid'],
  }),
  // A refresh keeps the grant's refresh token (a year).
  grants: { prefix: 'AQ', accessTtl: ACCESS_TTL, refreshTtl: REFRESH_TTL, onRefresh: 'keep', scopeJoin: ',', extra },
});

const LI_MAGIC: MagicErrors = {
  invalid_content: (m) => liFail(422, m, 'UNPROCESSABLE_ENTITY'),
  auth_expired: (m) =>
    liFail(401, `The token used in the request has been revoked by the user. ${m}`, 'REVOKED_ACCESS_TOKEN', 65601),
  media_rejected: (m) => liFail(400, `The media asset failed processing. ${m}`),
  rate_limited: (m) => withRetryAfter(liFail(429, `${throttled('APPLICATION')} ${m}`), SANDBOX_RATE_LIMIT_SECONDS),
  transient: (m) => liFail(503, m, 'SERVICE_UNAVAILABLE'),
};

@Injectable()
export class LinkedInSandbox extends SimulatorState {
  protected readonly network = 'linkedin';
  readonly images = this.records<LiImage>('image', (i) => i.urn);
  readonly videos = this.records<LiVideo>('video', (v) => v.urn);
  /** By author. */
  readonly posts = this.records<LiPost>('post', (p) => p.id);
}

const newId = (): string => `${Date.now()}${randomInt(100000, 999999)}`.slice(0, 19);
const newMediaKey = (): string => `C4E${randomBytes(9).toString('base64url')}`;

/** The `owner` when the member may act as it (itself or an organisation it administers), else LinkedIn's 403. */
function owned(member: LiMember, owner: unknown, what: string): string {
  if (typeof owner === 'string' && (owner === member.urn || member.orgs.some((o) => o.urn === owner))) return owner;
  throw denied(`${what} for owner ${String(owner)}`);
}

function memberOf(userId: string) {
  const sub = BigInt(userId).toString(36);
  const tail = userId.slice(-4);
  const orgs = ORG_NAMES.map((name, i) => {
    const id = stableInt(10_000_000, 99_999_999, userId, 'linkedin-org', String(i));
    const vanityName = `${name.toLowerCase().replace(/\s+/g, '-')}-${tail}`;
    return { urn: `urn:li:organization:${id}`, id, localizedName: `${name} ${tail}`, vanityName };
  });
  return { sub, urn: `urn:li:person:${sub}`, name: `Sandbox Member ${tail}`, orgs };
}

const URL_TTL_MS = 3_600_000;
const DAY_MS = 86_400_000;
const METRIC_TYPE_KEY = 'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1';

/** The days from `from` to `endExclusive` (epoch ms), at most a year of them. */
const daysOf = (from: number, endExclusive: number): string[] =>
  daysBetween(dayOf(from), dayOf(endExclusive - DAY_MS), 366);

const route = routesOf<LinkedInSandbox>();

// Analytics are sandbox-metrics': a post's numbers from itemMetrics(postUrn) (clicks = saves), a day's from
// dailyAccountMetrics(authorUrn, date).

const LINKEDIN_ROUTES = [
  route('GET v2/userinfo', LI_MEMBER, ({ caller: m }, li) => {
    const [given, ...family] = m.name.split(' ');
    return {
      sub: m.sub,
      name: m.name,
      given_name: given,
      family_name: family.join(' '),
      picture: li.sampleMedia('image.png'),
      locale: 'en-US',
      email_verified: true,
      email: `${m.sub}@sandbox.example`,
    };
  }),
  route('GET rest/organizationAcls', LI_REST, ({ q, caller: m }) => {
    finder(q, 'roleAssignee');
    const role = { roleAssignee: m.urn, state: 'APPROVED', role: 'ADMINISTRATOR' };
    const acls = m.orgs.map((o) => ({ ...role, organization: o.urn }));
    return collection(qs(q.role) && qs(q.role) !== 'ADMINISTRATOR' ? [] : acls);
  }),
  route('GET rest/organizations/:id', LI_REST, ({ params, caller: m }) => {
    const org = m.orgs.find((o) => o.id === Number(params.id));
    if (!org) throw denied(`organizations.GET.20240101 for urn:li:organization:${Number(params.id)}`);
    const { vanityName, localizedName, id, urn } = org;
    const localizedWebsite = `https://${vanityName}.example.com`;
    return { vanityName, localizedName, id, $URN: urn, localizedWebsite, primaryOrganizationType: 'NONE' };
  }),
  route({ at: 'POST rest/posts', raw: true }, LI_REST, async ({ body, caller: m, res }, li) => {
    for (const field of ['author', 'commentary', 'visibility', 'distribution', 'lifecycleState'])
      if (body[field] === undefined) throw unprocessable(field, REQUIRED);
    const author = owned(m, body.author, 'partnerApiPostsExternal.CREATE.20240101');
    const plain = unescapeLittleText(qs(body.commentary));
    const max = LINKEDIN_RULES.maxText;
    if (plain.length > max)
      throw unprocessable('commentary', `length of ${plain.length} exceeds the maximum allowed length of ${max}`);
    const content =
      body.content && typeof body.content === 'object' ? (body.content as Record<string, unknown>) : undefined;
    const hasVideo = await checkContent(li, author, content);
    // The member's daily limit (linkedinNetwork's cap): LinkedIn's throttle answer past it.
    const times = (await li.posts.of(author)).map((p) => p.createdAt);
    if (li.caps.reached('linkedin', times)) throw liFail(429, throttled('MEMBER'));
    const attempt = { platform: 'linkedin', accountId: author, text: plain, contentKey: JSON.stringify(content ?? {}) };
    await enforceMagicWords(li.store, attempt, LI_MAGIC);
    const { id } = await li.posts.add(author, newPost(author, body, content, hasVideo));
    res.status(201).set({ 'x-restli-id': id, 'x-linkedin-id': id }).end();
  }),
  /** Comments API: the actor (the post's author or an organisation it administers) comments on a post. */
  route({ at: 'POST rest/socialActions/:urn/comments', raw: true }, LI_REST, async (call, li) => {
    const { params, body, caller: m, res } = call;
    const urn = params.urn;
    const actor = owned(m, body.actor, 'partnerApiSocialActions.CREATE.20240101');
    if (!(await li.posts.get(urn))) throw notFound(`Not Found: ${urn}`);
    if (body.object !== undefined && body.object !== urn)
      throw illegal(`/object must be the socialActions target ${urn}`);
    const text = (body.message as { text?: unknown } | undefined)?.text;
    if (typeof text !== 'string' || !text.trim()) throw unprocessable('message/text', REQUIRED);
    const refused = commentRefusal('linkedin', text);
    if (refused) throw liFail(422, refused, 'UNPROCESSABLE_ENTITY');
    const id = newId();
    const commentUrn = `urn:li:comment:(urn:li:activity:${urn.split(':').at(-1)},${id})`;
    await addOwnComment(li.store, 'linkedin', urn, { id: actor, name: m.name }, text, commentUrn);
    const created = { actor, time: Date.now() };
    const answer = { actor, commentUrn, $URN: commentUrn, created, lastModified: created, id, object: urn };
    res.status(201).set({ 'x-restli-id': commentUrn });
    res.json({ ...answer, message: { text } });
  }),
  route('GET rest/posts', LI_REST, async ({ q, caller: m }, li) => {
    finder(q, 'author');
    const author = owned(m, qs(q.author), 'partnerApiPostsExternal.FINDER-author.20240101');
    const start = Math.max(0, Number(qs(q.start)) || 0);
    const count = pageSize(qs(q.count), 10, 100);
    const elements = await li.posts.of(author, start, count);
    return { paging: { start, count, links: [], total: await li.posts.countOf(author) }, elements };
  }),
  route('POST rest/images', LI_REST, async ({ q, body, caller: m }, li) => {
    if (q.action !== 'initializeUpload') throw illegal(`Unknown action ${String(q.action)}`);
    const owner = owned(m, ((body.initializeUploadRequest ?? {}) as Q).owner, 'images.ACTION-initializeUpload');
    const key = newMediaKey();
    const image = `urn:li:image:${key}`;
    await li.images.put({ urn: image, owner, status: 'WAITING_UPLOAD' });
    const uploadUrl = `${li.base}/dms-uploads/${key}/uploaded-image/0`;
    return { value: { uploadUrlExpiresAt: Date.now() + URL_TTL_MS, uploadUrl, image } };
  }),
  route({ at: 'PUT dms-uploads/:key/uploaded-image/0', raw: true }, LI_MEMBER, async (call, li) => {
    const { params, headers, req, res } = call;
    const image = await li.images.get(`urn:li:image:${params.key}`);
    if (!image) throw notFound('Upload URL not found or expired');
    const [bytes, type] = [await readRawBody(req), headers['content-type']];
    if (bytes.length === 0) throw liFail(400, 'The uploaded media file is empty', 'INVALID_MEDIA');
    if (!(type ?? '').startsWith('image/'))
      throw liFail(400, `Unsupported media type '${type ?? 'none'}' for an image upload`, 'INVALID_MEDIA');
    await li.images.put({ ...image, status: 'AVAILABLE' });
    res.status(201).end();
  }),
  route('POST rest/videos', LI_REST, async ({ q, body, caller: m }, li) => {
    const action = String(q.action);
    if (action === 'initializeUpload') {
      const init = (body.initializeUploadRequest ?? {}) as Q;
      const owner = owned(m, init.owner, 'videos.ACTION-initializeUpload');
      const size = Number(init.fileSizeBytes);
      if (!Number.isInteger(size) || size <= 0) throw illegal('fileSizeBytes must be a positive number of bytes');
      const key = newMediaKey();
      const video: LiVideo = { urn: `urn:li:video:${key}`, owner, parts: [], finalizedAt: null };
      for (let first = 0; first < size; first += LI_PART_BYTES)
        video.parts.push({ firstByte: first, lastByte: Math.min(size, first + LI_PART_BYTES) - 1, etag: null });
      await li.videos.put(video);
      const uploadInstructions = video.parts.map(({ firstByte, lastByte }, i) => {
        return { uploadUrl: `${li.base}/dms-uploads/${key}/uploadedVideo/${i}`, lastByte, firstByte };
      });
      const urls = { uploadUrlsExpireAt: Date.now() + URL_TTL_MS, video: video.urn, uploadInstructions };
      return { value: { ...urls, uploadToken: '', thumbnailUploadUrl: '' } };
    }
    if (action !== 'finalizeUpload') throw illegal(`Unknown action ${action}`);
    const fin = (body.finalizeUploadRequest ?? {}) as Q;
    const video = await li.videos.get(qs(fin.video));
    if (!video) throw notFound(`Video ${qs(fin.video)} not found`);
    owned(m, video.owner, 'videos.ACTION-finalizeUpload');
    const ids = Array.isArray(fin.uploadedPartIds) ? fin.uploadedPartIds : [];
    if (video.parts.some((p, i) => !p.etag || p.etag !== ids[i]) || ids.length !== video.parts.length)
      throw liFail(400, 'The uploaded part ids do not match the parts of this video upload', 'INVALID_UPLOAD');
    await li.videos.put({ ...video, finalizedAt: new Date().toISOString() });
    return {};
  }),
  route('GET rest/videos/:urn', LI_REST, async ({ params: { urn }, caller: m }, li) => {
    const video = await li.videos.get(urn);
    if (!video) throw notFound(`Video ${urn} not found`);
    owned(m, video.owner, 'videos.GET');
    const processing = video.finalizedAt && Date.now() - Date.parse(video.finalizedAt) < LI_VIDEO_PROCESSING_MS;
    const status = !video.finalizedAt ? 'WAITING_UPLOAD' : processing ? 'PROCESSING' : 'AVAILABLE';
    return { id: video.urn, owner: video.owner, status, duration: 0, aspectRatioWidth: 16, aspectRatioHeight: 9 };
  }),
  /** One pre-signed part (no token); the ETag is the part id finalizeUpload expects. */
  route({ at: 'PUT dms-uploads/:key/uploadedVideo/:part', raw: true }, null, async ({ params, req, res }, li) => {
    const video = await li.videos.get(`urn:li:video:${params.key}`);
    const p = video?.parts[Number(params.part)];
    if (!video || !p) throw notFound('Upload URL not found or expired');
    const bytes = await readRawBody(req);
    const size = p.lastByte - p.firstByte + 1;
    const wrongSize = `Part ${params.part} of the video upload must be ${size} bytes, got ${bytes.length}`;
    if (bytes.length !== size) throw liFail(400, wrongSize, 'INVALID_MEDIA');
    p.etag = `/${createHash('sha256').update(bytes).digest('base64url').slice(0, 40)}`;
    await li.videos.put(video);
    res.status(200).set('ETag', p.etag).end();
  }),
  route('GET rest/organizationalEntityShareStatistics', LI_REST, ({ q, caller: m }) => {
    const org = owned(m, qs(q.organizationalEntity), 'organizationalEntityShareStatistics.FINDER-organizationalEntity');
    if (!org.startsWith('urn:li:organization:')) throw illegal('organizationalEntity must be an organization URN');
    const posts = listParam(qs(q.shares) || qs(q.ugcPosts));
    const kind = (urn: string) => (urn.includes(':ugcPost:') ? 'ugcPost' : 'share');
    const entity = { organizationalEntity: org };
    const ofPost = (urn: string) => ({ ...entity, [kind(urn)]: urn, totalShareStatistics: postStats(urn) });
    if (posts.length) return collection(posts.map(ofPost));
    const interval = /timeRange:\(start:(\d+),end:(\d+)\)/.exec(qs(q.timeIntervals));
    if (!interval) return collection([{ ...entity, totalShareStatistics: postStats(org) }]);
    const elements = daysOf(Number(interval[1]), Number(interval[2])).map((d) => {
      const [t, day] = [unixDay(d) * 1000, dailyAccountMetrics(org, d)];
      const totalShareStatistics = shareStats({ ...day, comments: 0 }, 0, day.engagement - day.shares);
      return { ...entity, timeRange: { start: t, end: t + DAY_MS }, totalShareStatistics };
    });
    return collection(elements, elements.length);
  }),
  route('GET rest/networkSizes/:urn', LI_REST, ({ q, params: { urn }, caller: m }) => {
    owned(m, urn, 'networkSizes.GET');
    if (String(q.edgeType) !== 'COMPANY_FOLLOWED_BY_MEMBER')
      throw illegal(`Unsupported edgeType ${String(q.edgeType)}`);
    return { firstDegreeSize: dailyAccountMetrics(urn, dayOf(Date.now())).followers };
  }),
  route('GET rest/memberCreatorPostAnalytics', LI_REST, async ({ q, caller: m }, li) => {
    const type = qs(q.queryType);
    if (!Object.hasOwn(QUERY_TYPES, type)) throw illegal(`Invalid queryType ${type}`);
    const metricType = { [METRIC_TYPE_KEY]: type };
    if (qs(q.q) === 'entity') {
      // entity=(share:urn:li:share:1) / (ugcPost:urn:li:ugcPost:1), or a bare URN.
      const urn = /(urn:li:(?:share|ugcPost):[^)]+)/.exec(qs(q.entity))?.[1] ?? '';
      const post = await li.posts.get(urn);
      if (!post || post.author !== m.urn) throw denied(`memberCreatorPostAnalytics for ${urn || '(none)'}`);
      const it = itemMetrics(urn);
      return collection([{ count: QUERY_TYPES[type]({ ...it, reactions: it.likes }), metricType }]);
    }
    finder(q, 'me');
    const [from, endExclusive] = [...qs(q.dateRange).matchAll(/\(day:(\d+),month:(\d+),year:(\d+)\)/g)].map((x) =>
      Date.UTC(Number(x[3]), Number(x[2]) - 1, Number(x[1])),
    );
    if (from === undefined || endExclusive === undefined || endExclusive <= from)
      throw illegal('dateRange must have a start before its end');
    const days = daysOf(from, endExclusive);
    const pick = (d: string): number => {
      const x = dailyAccountMetrics(m.urn, d);
      return QUERY_TYPES[type]({ ...x, reactions: x.engagement - x.shares, comments: 0 });
    };
    if (qs(q.aggregation) === 'TOTAL')
      return collection([{ count: days.reduce((s, d) => s + pick(d), 0), metricType }], 1);
    const range = (d: string) => ({ start: liDate(d), end: liDate(addDays(d, 1)) });
    const elements = days.map((d) => ({ count: pick(d), metricType, dateRange: range(d) }));
    return collection(elements, elements.length);
  }),
  route('GET rest/memberFollowersCount', LI_REST, ({ q, caller: m }) => {
    if (String(q.q) !== 'me') throw illegal(`Invalid finder: ${String(q.q)}`);
    return collection([{ memberFollowersCount: dailyAccountMetrics(m.urn, dayOf(Date.now())).followers }], 1);
  }),
];

/** The post a POST rest/posts creates (with a new id: a video post is a ugcPost, any other a share). */
function newPost(author: string, body: Q, content: Record<string, unknown> | undefined, hasVideo: boolean) {
  const now = Date.now();
  const id = `urn:li:${hasVideo ? 'ugcPost' : 'share'}:${newId()}`;
  const [commentary, visibility, lifecycleState] = [body.commentary, body.visibility, body.lifecycleState].map(qs);
  const at = { createdAt: now, publishedAt: now, lastModifiedAt: now };
  return { id, author, commentary, visibility, lifecycleState, content, ...at };
}

/** Media referenced by a post must be AVAILABLE and owned by its author. Returns whether it is a video post. */
async function checkContent(li: LinkedInSandbox, author: string, content: Record<string, unknown> | undefined) {
  if (!content) return false;
  const media = content.media as { id?: unknown } | undefined;
  const multi = (content.multiImage as { images?: { id?: unknown }[] } | undefined)?.images;
  const ids = media ? [media.id] : (multi ?? []).map((i) => i.id);
  // A multi-image post holds 2 images or more (one image is `media`), at most LINKEDIN_RULES' max.
  const max = LINKEDIN_RULES.images.max;
  if (multi && (multi.length < 2 || multi.length > max))
    throw unprocessable('content/multiImage/images', `array size ${multi.length} is not within 2..${max}`);
  let video = false;
  for (const raw of ids) {
    const id = typeof raw === 'string' ? raw : '';
    if (id.startsWith('urn:li:video:')) {
      const v = await li.videos.get(id);
      if (!v || v.owner !== author || !v.finalizedAt)
        throw liFail(400, `Video ${id} is not AVAILABLE or not owned by ${author}`, 'INVALID_CONTENT');
      video = true;
      continue;
    }
    const img = await li.images.get(id);
    if (!img || img.owner !== author || img.status !== 'AVAILABLE')
      throw liFail(400, `Image ${id || '(none)'} is not AVAILABLE or not owned by ${author}`, 'INVALID_CONTENT');
  }
  if (video && ids.length > 1) throw unprocessable('content', 'a post holds one video and no images');
  return video;
}

/** `List(urn:li:share:1,urn:li:share:2)` → the URNs. */
const listParam = (v: string): string[] =>
  (/^List\((.*)\)$/.exec(v)?.[1] ?? '').split(',').flatMap((s) => decodeURIComponent(s.trim()) || []);

type Numbers = { views: number; reach: number; shares: number; comments: number };

const QUERY_TYPES: Record<string, (n: Numbers & { reactions: number }) => number> = {
  IMPRESSION: (n) => n.views,
  MEMBERS_REACHED: (n) => n.reach,
  RESHARE: (n) => n.shares,
  REACTION: (n) => n.reactions,
  COMMENT: (n) => n.comments,
};

/** totalShareStatistics of a post or an organisation's day (engagement as a rate of impressions). */
function shareStats(n: Numbers & { engagement: number }, clicks: number, likes: number): Record<string, number> {
  return {
    uniqueImpressionsCount: n.reach,
    shareCount: n.shares,
    engagement: n.views ? n.engagement / n.views : 0,
    clickCount: clicks,
    likeCount: likes,
    impressionCount: n.views,
    commentCount: n.comments,
  };
}

function postStats(urn: string): Record<string, number> {
  const it = itemMetrics(urn);
  return shareStats(it, it.saves, it.likes);
}

export const LINKEDIN_SIMULATOR = simulator(LINKEDIN_LOGIN, LinkedInSandbox, LINKEDIN_ROUTES);
