import type { McpServer, ToolAnnotations } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { CONTENT_TYPES, POST_STATES } from '../posts/entities/post.entity';
import { PLATFORM_NAMES } from '@/modules/networks/platform-name';
import { CallerContext, forwardToRest, RestCall, segment } from './rest-forwarder';

/**
 * The MCP tools: one per REST action, named after it in snake_case. Each tool only describes
 * how its arguments become a REST call; the call itself is the REST endpoint (see
 * rest-forwarder.ts), so a tool needs exactly the permission of its endpoint.
 */

const profileId = z
  .string()
  .min(1)
  .describe("Profile to act on (UUID). Omit to use the API key's home profile.")
  .optional();
const idempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .describe(
    'Optional Idempotency-Key (stored 24 h): repeating the call with the same key returns the first result instead of acting twice. Reuse it when retrying after an error or time-out.',
  )
  .optional();
const page = z.number().int().min(1).describe('Page number, from 1 (default 1).').optional();
const limit = z.number().int().min(1).max(100).describe('Results per page, 1–100 (default 20).').optional();
const id = (what: string) => z.string().min(1).max(200).describe(`The ${what} id (UUID).`);

/**
 * A per-platform or per-account option value (title, privacyStatus, tags…): scalars or a list of
 * them, declared so that MCP clients' strict schema checks (MCP Inspector --strict) see a type.
 */
const optionValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);
const options = z.record(z.string(), optionValue);

const FIRST_COMMENT =
  'A comment each account posts on its item right after it publishes (Facebook, Instagram, LinkedIn, YouTube; a reply on Threads). TikTok accounts refuse one: leave them out with perAccount.<id>.firstComment: null.';

const publishContent = z
  .object({
    contentType: z
      .enum(CONTENT_TYPES)
      .describe('Inferred when omitted: videoUrl → video, imageUrls → image, else text.')
      .optional(),
    message: z.string().describe('Body text.').optional(),
    caption: z.string().optional(),
    link: z.string().describe('Link to attach.').optional(),
    imageUrls: z.array(z.string()).describe('Public image URLs (see create_upload_url).').optional(),
    videoUrl: z.string().describe('Public video URL.').optional(),
    platformCaptions: z
      .record(z.string(), z.string())
      .describe('Caption per platform name, e.g. { "instagram": "…" }.')
      .optional(),
    perAccount: z
      .record(z.string(), options)
      .describe('Overrides per account id (caption, message, firstComment: null for none there, platform options).')
      .optional(),
    firstComment: z.string().max(500).describe(FIRST_COMMENT).optional(),
  })
  .catchall(options)
  .describe(
    'Full content object; per-platform options may be given under the platform name (e.g. youtube: { title }).',
  );

const postBody = {
  content: z
    .union([z.string(), publishContent])
    .describe('The post text, or a content object for media, links and per-platform captions.'),
  accountIds: z.array(z.string()).min(1).describe('Ids of the connected accounts to publish to (see list_accounts).'),
  publishNow: z.boolean().describe('Queue for publishing immediately. Do not combine with scheduledAt.').optional(),
  addToQueue: z
    .boolean()
    .describe(
      "Schedule at the profile's next free posting-queue slot (see get_queue) instead of publishNow/scheduledAt.",
    )
    .optional(),
  scheduledAt: z
    .string()
    .describe('ISO 8601 date-time in the future to publish at. Omit both this and publishNow to save a draft.')
    .optional(),
  mediaUrls: z.array(z.string()).describe('Public media URLs (images or one video).').optional(),
  firstComment: z.string().max(500).describe(FIRST_COMMENT).optional(),
  platforms: z
    .record(z.string(), options)
    .describe('Per-platform extras keyed by platform name, e.g. { "youtube": { "title": "…" } }.')
    .optional(),
  profileId,
};

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
const WRITE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

interface ToolSpec<S extends z.ZodObject> {
  title: string;
  description: string;
  input: S;
  annotations: ToolAnnotations;
  call: (args: z.infer<S>) => RestCall;
}

export interface McpTool {
  name: string;
  register: (server: McpServer, caller: CallerContext) => void;
}

function tool<S extends z.ZodObject>(name: string, spec: ToolSpec<S>): McpTool {
  return {
    name,
    register: (server, caller) => {
      // The SDK validates arguments against `input` before calling back, so the cast holds.
      const inputSchema: z.ZodObject = spec.input;
      server.registerTool(
        name,
        {
          title: spec.title,
          description: spec.description,
          inputSchema,
          annotations: { title: spec.title, ...spec.annotations },
        },
        (args) => forwardToRest(caller, spec.call(args as z.infer<S>)),
      );
    },
  };
}

/** Splits the tool-only `idempotencyKey` and `profileId` off a write body. */
function writeBody<T extends { idempotencyKey?: string }>(
  args: T,
): { body: Omit<T, 'idempotencyKey'>; idempotencyKey?: string } {
  const { idempotencyKey: key, ...body } = args;
  return { body, idempotencyKey: key };
}

export const MCP_TOOLS: McpTool[] = [
  tool('list_profiles', {
    title: 'List profiles',
    description:
      'List the profiles (one per customer/brand) this API key can reach. GET /v1/profiles. Needs profiles:read.',
    input: z.object({ page, limit }),
    annotations: READ,
    call: (a) => ({ method: 'GET', path: '/v1/profiles', query: a }),
  }),
  tool('get_profile', {
    title: 'Get a profile',
    description:
      "Get one profile by id, or the API key's home profile when no id is given. GET /v1/profiles/{id} or GET /v1/profile. Needs profiles:read.",
    input: z.object({ id: id('profile').optional() }),
    annotations: READ,
    call: (a) =>
      a.id ? { method: 'GET', path: `/v1/profiles/${segment(a.id)}` } : { method: 'GET', path: '/v1/profile' },
  }),
  tool('list_accounts', {
    title: 'List connected accounts',
    description:
      'List the social accounts (pages) connected to a profile; their ids are the accountIds of create_post. GET /v1/accounts. Needs accounts:read.',
    input: z.object({ profileId }),
    annotations: READ,
    call: (a) => ({ method: 'GET', path: '/v1/accounts', query: a }),
  }),
  tool('get_account_limits', {
    title: "Get an account's publishing caps",
    description:
      "The network's publishing caps for one connected account and how much of each is used ({ limits: [{ name, window, limit, used, resetsAt, scope, source }] }): Instagram and Threads per rolling 24 h, TikTok and LinkedIn per day, YouTube uploads per project per day. A post over a cap fails with network_rate_limited without reaching the network; check before scheduling many. GET /v1/accounts/{id}/limits. Needs accounts:read.",
    input: z.object({ id: id('account'), profileId }),
    annotations: READ,
    call: ({ id: accountId, ...query }) => ({
      method: 'GET',
      path: `/v1/accounts/${segment(accountId)}/limits`,
      query,
    }),
  }),
  tool('list_posts', {
    title: 'List posts',
    description: 'List posts of a profile, newest first, with optional filters. GET /v1/posts. Needs posts:read.',
    input: z.object({
      page,
      limit,
      state: z.enum(POST_STATES).describe('Only posts in this state.').optional(),
      contentType: z.enum(CONTENT_TYPES).describe('Only posts of this content type.').optional(),
      platform: z.enum(PLATFORM_NAMES).describe('Only posts targeting this platform.').optional(),
      profileId,
    }),
    annotations: READ,
    call: (a) => ({ method: 'GET', path: '/v1/posts', query: a }),
  }),
  tool('get_post', {
    title: 'Get a post',
    description:
      'Get one post with its full content, state and per-account target results. GET /v1/posts/{id}. Needs posts:read.',
    input: z.object({ id: id('post'), profileId }),
    annotations: READ,
    call: ({ id: postId, ...query }) => ({ method: 'GET', path: `/v1/posts/${segment(postId)}`, query }),
  }),
  tool('create_post', {
    title: 'Create a post',
    description:
      'Create a post for one or more connected accounts: a draft (neither publishNow nor scheduledAt), a scheduled post (scheduledAt) or an immediate publish (publishNow: true). Publishing is asynchronous: check the result with get_post. Run validate_post first to catch per-network errors. POST /v1/posts. Needs posts:write.',
    input: z.object({ ...postBody, idempotencyKey }),
    annotations: WRITE,
    call: (a) => ({ method: 'POST', path: '/v1/posts', ...writeBody(a) }),
  }),
  tool('get_queue', {
    title: 'Get the posting queue',
    description:
      "The profile's posting queue: { timezone, slots: [{ day, time }] }, the weekly times posts created with addToQueue: true are scheduled at. GET /v1/queue. Needs posts:read.",
    input: z.object({ profileId }),
    annotations: READ,
    call: (a) => ({ method: 'GET', path: '/v1/queue', query: a }),
  }),
  tool('list_queue_slots', {
    title: 'List the next free queue slots',
    description:
      "The next free slot times of the posting queue in UTC ({ slots }), following the zone's daylight-saving changes: the times the next posts created with addToQueue: true will take. GET /v1/queue/next-slots. Needs posts:read.",
    input: z.object({
      count: z.number().int().min(1).max(50).describe('How many slots (default 5).').optional(),
      profileId,
    }),
    annotations: READ,
    call: (a) => ({ method: 'GET', path: '/v1/queue/next-slots', query: a }),
  }),
  tool('create_posts_bulk', {
    title: 'Create posts in bulk',
    description:
      'Create up to 100 posts at once, all or nothing: answers { posts: [{ id, state }] } in input order, or an invalid_request error whose details.errors name each failing post by index. With dryRun: true, runs every check and creates nothing, answering { valid, results: [{ index, valid, errors }] }. Caps count the whole batch. POST /v1/posts/bulk. Needs posts:write.',
    input: z.object({
      posts: z
        .array(z.object(postBody).omit({ profileId: true }))
        .min(1)
        .max(100)
        .describe('The posts, each like the input of create_post (without profileId).'),
      dryRun: z.boolean().describe('Check every post and create nothing.').optional(),
      profileId,
      idempotencyKey,
    }),
    annotations: WRITE,
    call: (a) => ({ method: 'POST', path: '/v1/posts/bulk', ...writeBody(a) }),
  }),
  tool('validate_post', {
    title: 'Validate a post',
    description:
      "Run every target network's checks (text length, media, video, titles) on a post without creating it; answers { valid, errors }. POST /v1/posts/validate. Needs posts:write.",
    input: z.object(postBody),
    annotations: { readOnlyHint: true, openWorldHint: false },
    call: (a) => ({ method: 'POST', path: '/v1/posts/validate', body: a }),
  }),
  tool('publish_post', {
    title: 'Publish a post',
    description:
      'Publish a draft, scheduled or approved post now (it is queued, or sent for approval where the profile requires it). POST /v1/posts/{id}/publish. Needs posts:write.',
    input: z.object({ id: id('post'), profileId, idempotencyKey }),
    annotations: WRITE,
    call: ({ id: postId, idempotencyKey: key, ...query }) => ({
      method: 'POST',
      path: `/v1/posts/${segment(postId)}/publish`,
      query,
      idempotencyKey: key,
    }),
  }),
  tool('cancel_post', {
    title: 'Cancel a post',
    description:
      'Cancel a scheduled or queued post before it is published; other states answer invalid_state_transition. DELETE /v1/posts/{id}. Needs posts:write.',
    input: z.object({ id: id('post'), profileId, idempotencyKey }),
    annotations: { ...WRITE, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    call: ({ id: postId, idempotencyKey: key, ...query }) => ({
      method: 'DELETE',
      path: `/v1/posts/${segment(postId)}`,
      query,
      idempotencyKey: key,
    }),
  }),
  tool('retry_post', {
    title: 'Retry a failed post',
    description:
      'Requeue a failed or partially_published post; only the accounts that failed are published again. POST /v1/posts/{id}/retry. Needs posts:write.',
    input: z.object({ id: id('post'), profileId, idempotencyKey }),
    annotations: WRITE,
    call: ({ id: postId, idempotencyKey: key, ...query }) => ({
      method: 'POST',
      path: `/v1/posts/${segment(postId)}/retry`,
      query,
      idempotencyKey: key,
    }),
  }),
  tool('get_post_history', {
    title: 'Get post history',
    description:
      "The post's state changes: [{ from, to, at, reason, actor }]. GET /v1/posts/{id}/history. Needs posts:read.",
    input: z.object({ id: id('post'), profileId }),
    annotations: READ,
    call: ({ id: postId, ...query }) => ({ method: 'GET', path: `/v1/posts/${segment(postId)}/history`, query }),
  }),
  tool('approve_post', {
    title: 'Approve a post',
    description:
      "Approve a post waiting in pending_approval; it continues to scheduled or queued. The key's owner must be an approver. POST /v1/posts/{id}/approve. Needs posts:approve.",
    input: z.object({ id: id('post'), profileId, idempotencyKey }),
    annotations: WRITE,
    call: ({ id: postId, idempotencyKey: key, ...query }) => ({
      method: 'POST',
      path: `/v1/posts/${segment(postId)}/approve`,
      query,
      idempotencyKey: key,
    }),
  }),
  tool('reject_post', {
    title: 'Reject a post',
    description:
      'Reject a post waiting in pending_approval, with an optional reason; it stays unpublished. POST /v1/posts/{id}/reject. Needs posts:approve.',
    input: z.object({
      id: id('post'),
      reason: z.string().max(2000).describe('Why the post is rejected (shown in its history).').optional(),
      profileId,
      idempotencyKey,
    }),
    annotations: { ...WRITE, openWorldHint: false },
    call: ({ id: postId, ...rest }) => ({
      method: 'POST',
      path: `/v1/posts/${segment(postId)}/reject`,
      ...writeBody(rest),
    }),
  }),
  tool('get_analytics_history', {
    title: 'Get analytics history',
    description:
      'Daily-snapshot analytics of a profile for a date range compared with the previous period of the same length: summary (views, engagement, shares, followers, reach, engagementRate), timeseries, per-platform breakdown, top content and insights. GET /v1/analytics/history. Needs analytics:read.',
    input: z.object({
      from: z.string().describe('First day, YYYY-MM-DD (default: 28 days ago).').optional(),
      to: z.string().describe('Last day, YYYY-MM-DD (default: today). At most 366 days after from.').optional(),
      profileId,
    }),
    annotations: READ,
    call: (a) => ({ method: 'GET', path: '/v1/analytics/history', query: a }),
  }),
  tool('list_comments', {
    title: 'List comments',
    description:
      'Comments received on published content (facebook and instagram accounts with comment sync). Cursor pagination: pass nextCursor from the previous answer; stop when it is null. GET /v1/comments. Needs comments:read.',
    input: z.object({
      cursor: z.string().describe('nextCursor of the previous page.').optional(),
      limit,
      accountId: z.string().describe('Only comments on this account.').optional(),
      postId: z.string().describe('Only comments on this post.').optional(),
      profileId,
    }),
    annotations: READ,
    call: (a) => ({ method: 'GET', path: '/v1/comments', query: a }),
  }),
  tool('create_upload_url', {
    title: 'Create a media upload URL',
    description:
      'Get a signed URL to upload one image or video with an HTTP PUT, and the publicUrl to put in a post (content.imageUrls / content.videoUrl or mediaUrls). Accepted: image/jpeg, image/png, image/gif, image/webp, video/mp4, video/quicktime. POST /v1/media/upload. Needs media:write.',
    input: z.object({
      fileName: z.string().min(1).describe('File name, e.g. photo.jpg.'),
      fileType: z.string().min(1).describe('MIME type, e.g. image/jpeg.'),
      profileId,
      idempotencyKey,
    }),
    annotations: WRITE,
    call: (a) => ({ method: 'POST', path: '/v1/media/upload', ...writeBody(a) }),
  }),
  tool('list_webhooks', {
    title: 'List webhook subscriptions',
    description:
      'List the webhook subscriptions of a profile (url, events, scope, isActive; never the secret). GET /v1/webhooks. Needs webhooks:read.',
    input: z.object({ profileId }),
    annotations: READ,
    call: (a) => ({ method: 'GET', path: '/v1/webhooks', query: a }),
  }),
  tool('list_events', {
    title: 'List audit events',
    description:
      "The profile's audit trail, newest first: every webhook event type (post.published, …) plus administrative actions (api_key.created, policy.updated, …). GET /v1/events. Needs audit:read.",
    input: z.object({
      page,
      limit,
      type: z.string().max(100).describe('Only events of this type, e.g. post.failed.').optional(),
      profileId,
    }),
    annotations: READ,
    call: (a) => ({ method: 'GET', path: '/v1/events', query: a }),
  }),
];
