import Stripe from 'stripe';
import { QueueService } from '@/common/queue/queue.service';
import { CommentsSyncService } from '@/modules/comments/comments-sync.service';
import type { PlatformName } from '@/modules/networks/platform-name';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from '@/modules/webhooks/event-types';
import { CLIENT_RETURN_URL, connectThroughSandbox, defaultJar, follow } from '@test/support/connect-flow';
import { inFuture } from '@test/support/post-fixtures';
import { createTenant, eventually, Tenant, TestApp } from '@test/support/test-app';
import {
  ReceivedWebhook,
  WebhookReceiver,
  startAppAndReceiver,
  closeAppAndReceiver,
  subscribeWebhook,
} from '@test/support/webhook-receiver';

const stripeSignature = new Stripe('sk_test_x').webhooks.signature!;
const PATH = '/every-event';

interface TargetResultBody {
  targetId: string;
  accountId: string;
  platform: string;
  status: string;
  result?: { id: string; url: string | null };
  error?: string;
  errorCategory?: string;
}

interface PostEventBody {
  profileId: string;
  postId: string;
  status: string;
  state: string;
  completedTargets: number;
  failedTargets: number;
  results: TargetResultBody[];
}

interface TargetDto {
  id: string;
  accountId: string;
  platform: PlatformName;
  status: string;
  externalId: string | null;
  error: string | null;
}

interface AccountRef {
  id: string;
  platform: PlatformName;
}

interface CommentBody {
  id: string;
  accountId: string;
  postId: string;
}

/** The post status each post.* / approval.* event reports (post.created: the state the post was created in). */
const STATUS_OF: Partial<Record<WebhookEventType, string>> = {
  'post.scheduled': 'scheduled',
  'post.published': 'published',
  'post.partially_published': 'partially_published',
  'post.failed': 'failed',
  'post.cancelled': 'cancelled',
  'approval.requested': 'pending_approval',
  'approval.approved': 'approved',
  'approval.rejected': 'rejected',
};

const isPostEvent = (type: string): boolean => type.startsWith('post.') || type.startsWith('approval.');

/** What an event is about: the post, the account, the connect session or the comment. */
function subjectOf(hit: ReceivedWebhook): string {
  const { type, data } = hit.body;
  if (isPostEvent(type)) return String(data.postId);
  if (type.startsWith('connection.')) return String(data.sessionId);
  if (type.startsWith('account.')) return (data.account as { id: string } | undefined)?.id ?? 'no-account';
  if (type === 'comment.received') return (data.comment as CommentBody | undefined)?.id ?? 'no-comment';
  return 'unknown';
}

/**
 * With a real receiver on loopback, every post and connection event
 * arrives once per state change, signed, in the documented envelope. Every event is caused by a
 * real flow (REST API, hosted connect through the sandbox, the worker publishing to the sandbox).
 */
describe('webhooks: every event type, once per state change', () => {
  let t: TestApp;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  let secret: string;
  let subscriptionId: string;
  let fb: AccountRef;
  let li: AccountRef;
  let seq = 0;
  /** `${type} ${subject}` → how many times that state change happened. */
  const expected = new Map<string, number>();
  /** The state each post was created in (post.created carries it). */
  const createdState = new Map<string, string>();

  const changed = (type: WebhookEventType, subject: string): void => {
    const key = `${type} ${subject}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  };
  const hits = (type?: WebhookEventType, subject?: string): ReceivedWebhook[] =>
    receiver.at(PATH).filter((h) => (!type || h.body.type === type) && (!subject || subjectOf(h) === subject));
  /** Waits for `count` deliveries of one event type about one subject. */
  const arrived = (type: WebhookEventType, subject: string, count = 1): Promise<ReceivedWebhook[]> =>
    eventually(async () => (hits(type, subject).length >= count ? hits(type, subject) : undefined), {
      timeoutMs: 30_000,
      intervalMs: 50,
    });
  const text = (words = ''): string => `Every event ${++seq} ${Date.now()} ${words}`.trim();

  async function connect(platform: PlatformName): Promise<AccountRef> {
    const { sessionId, end } = await connectThroughSandbox(t, tenant, platform);
    expect(end.url).toBe(`${CLIENT_RETURN_URL}?session=${sessionId}&status=completed`);
    const session = await t.http().get(`/v1/connect/sessions/${sessionId}`).set(tenant.auth).expect(200);
    const [account] = session.body.accounts as { id: string }[];
    changed('connection.completed', sessionId);
    changed('account.connected', account.id);

    const [completed] = await arrived('connection.completed', sessionId);
    expect(completed.body.data).toMatchObject({
      profileId: tenant.profileId,
      sessionId,
      platform,
      accounts: [expect.objectContaining({ id: account.id, platform })],
    });
    const [connected] = await arrived('account.connected', account.id);
    expect(connected.body.data).toMatchObject({
      profileId: tenant.profileId,
      sessionId,
      reconnected: false,
      account: expect.objectContaining({ id: account.id, platform, status: 'active' }),
    });
    return { id: account.id, platform };
  }

  async function createPost(body: Record<string, unknown>): Promise<string> {
    const res = await t.http().post('/v1/posts').set(tenant.auth).send(body).expect(201);
    const id = res.body.id as string;
    createdState.set(id, res.body.state as string);
    changed('post.created', id);
    return id;
  }

  async function targetsOf(postId: string): Promise<TargetDto[]> {
    const res = await t.http().get(`/v1/posts/${postId}`).set(tenant.auth).expect(200);
    return res.body.post.targets as TargetDto[];
  }

  /** The final event's results are the post's targets: network id on success, error on failure. */
  async function expectResultsMatchTargets(
    hit: ReceivedWebhook,
    want: Record<string, 'success' | 'failed'>,
  ): Promise<void> {
    const data = hit.body.data as unknown as PostEventBody;
    const targets = await targetsOf(data.postId);
    expect(targets).toHaveLength(Object.keys(want).length);
    expect(data.results).toHaveLength(targets.length);
    for (const target of targets) {
      expect(target.status).toBe(want[target.accountId]);
      const result = data.results.find((r) => r.targetId === target.id);
      expect(result).toMatchObject({ accountId: target.accountId, platform: target.platform, status: target.status });
      if (target.status === 'success') expect(result!.result!.id).toBe(target.externalId);
      else expect(result!.error).toBe(target.error);
    }
    expect(data.completedTargets).toBe(targets.filter((x) => x.status === 'success').length);
    expect(data.failedTargets).toBe(targets.filter((x) => x.status === 'failed').length);
  }

  beforeAll(async () => {
    ({ t, receiver } = await startAppAndReceiver({
      env: { WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200,200', SCHEDULER_SWEEP_MS: '500' },
    }));
    tenant = await createTenant(t);
    ({ id: subscriptionId, secret } = await subscribeWebhook(t, tenant, receiver.url(PATH), ['*']));
  });
  afterAll(() => closeAppAndReceiver(t, receiver));

  it('should deliver connection.completed and account.connected for facebook and linkedin connected through the hosted flow', async () => {
    fb = await connect('facebook');
    li = await connect('linkedin');
  });

  it('should deliver connection.failed for a denied consent and for an expired session', async () => {
    // Denied: stop at the network's consent page and come back as the network does on "Cancel".
    const denied = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'linkedin', redirectUrl: CLIENT_RETURN_URL })
      .expect(201);
    const deniedId = denied.body.id as string;
    const start = await fetch(denied.body.url as string, { redirect: 'manual' });
    defaultJar.take(start); // the same browser answers the callback
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const end = await follow(
      `${t.url}/connect/callback/linkedin?error=access_denied&error_description=${encodeURIComponent('The user denied the request.')}&state=${state}`,
      {
        stopAt: CLIENT_RETURN_URL,
      },
    );
    expect(end.url).toBe(`${CLIENT_RETURN_URL}?session=${deniedId}&status=failed&error=access_denied`);
    changed('connection.failed', deniedId);

    // Expired: the person opens a link older than an hour (twice: the second visit changes nothing).
    const old = await t
      .http()
      .post('/v1/connect/sessions')
      .set(tenant.auth)
      .send({ platform: 'facebook', redirectUrl: CLIENT_RETURN_URL })
      .expect(201);
    const oldId = old.body.id as string;
    await t.ds.query(`UPDATE connect_sessions SET expires_at = now() - interval '1 second' WHERE id = $1`, [oldId]);
    for (let i = 0; i < 2; i++) {
      const visit = await follow(old.body.url as string, { stopAt: CLIENT_RETURN_URL });
      expect(visit.url).toBe(`${CLIENT_RETURN_URL}?session=${oldId}&status=expired&error=expired`);
    }
    changed('connection.failed', oldId);

    const [deniedHit] = await arrived('connection.failed', deniedId);
    expect(deniedHit.body.data).toMatchObject({
      profileId: tenant.profileId,
      sessionId: deniedId,
      platform: 'linkedin',
      status: 'failed',
      error: { code: 'access_denied' },
    });
    const [expiredHit] = await arrived('connection.failed', oldId);
    expect(expiredHit.body.data).toMatchObject({
      profileId: tenant.profileId,
      sessionId: oldId,
      platform: 'facebook',
      status: 'expired',
      error: { code: 'expired' },
    });
  });

  it('should deliver post.created for a draft', async () => {
    const id = await createPost({ content: text('draft'), accountIds: [fb.id] });
    const [hit] = await arrived('post.created', id);
    expect(hit.body.data).toMatchObject({
      profileId: tenant.profileId,
      postId: id,
      status: 'draft',
      state: 'draft',
      completedTargets: 0,
      failedTargets: 0,
      results: [],
    });
  });

  it('should deliver post.scheduled per (re)schedule and post.cancelled for a cancelled scheduled post', async () => {
    const id = await createPost({
      content: text('scheduled'),
      accountIds: [fb.id, li.id],
      scheduledAt: inFuture(3600_000),
    });
    expect(createdState.get(id)).toBe('scheduled');
    changed('post.scheduled', id);
    const [first] = await arrived('post.scheduled', id);
    expect(first.body.data).toMatchObject({ postId: id, status: 'scheduled', state: 'scheduled' });

    const later = inFuture(7200_000);
    await t.http().put(`/v1/posts/${id}`).set(tenant.auth).send({ scheduledAt: later }).expect(200);
    changed('post.scheduled', id);
    const both = await arrived('post.scheduled', id, 2);
    expect(both.map((h) => h.body.data.scheduledAt)).toContain(later);

    const cancel = await t.http().delete(`/v1/posts/${id}`).set(tenant.auth).expect(200);
    expect(cancel.body.state).toBe('cancelled');
    changed('post.cancelled', id);
    const [cancelled] = await arrived('post.cancelled', id);
    expect(cancelled.body.data).toMatchObject({
      postId: id,
      status: 'cancelled',
      state: 'cancelled',
      completedTargets: 0,
      failedTargets: 0,
      results: [],
    });
    // Cancelling again is refused and announces nothing.
    await t.http().delete(`/v1/posts/${id}`).set(tenant.auth).expect(400);
  });

  it('should deliver post.scheduled then post.published for a scheduled post whose time comes', async () => {
    const id = await createPost({ content: text('due soon'), accountIds: [fb.id], scheduledAt: inFuture(5000) });
    changed('post.scheduled', id);
    changed('post.published', id);
    await arrived('post.scheduled', id);
    const [published] = await arrived('post.published', id);
    await expectResultsMatchTargets(published, { [fb.id]: 'success' });
  });

  it('should deliver post.published for a post published now on both accounts', async () => {
    const id = await createPost({ content: text(), accountIds: [fb.id, li.id], publishNow: true });
    changed('post.published', id);
    const [hit] = await arrived('post.published', id);
    expect(hit.body.data).toMatchObject({
      postId: id,
      status: 'published',
      state: 'published',
      completedTargets: 2,
      failedTargets: 0,
    });
    await expectResultsMatchTargets(hit, { [fb.id]: 'success', [li.id]: 'success' });
  });

  it('should deliver post.partially_published when one network rejects the post', async () => {
    const id = await createPost({
      content: text('#sandbox-fail:linkedin'),
      accountIds: [fb.id, li.id],
      publishNow: true,
    });
    changed('post.partially_published', id);
    const [hit] = await arrived('post.partially_published', id);
    expect(hit.body.data).toMatchObject({
      postId: id,
      status: 'partially_published',
      state: 'partially_published',
      completedTargets: 1,
      failedTargets: 1,
    });
    await expectResultsMatchTargets(hit, { [fb.id]: 'success', [li.id]: 'failed' });
  });

  it('should deliver post.failed when every network rejects the post', async () => {
    const id = await createPost({ content: text('#sandbox-fail'), accountIds: [fb.id, li.id], publishNow: true });
    changed('post.failed', id);
    const [hit] = await arrived('post.failed', id);
    expect(hit.body.data).toMatchObject({
      postId: id,
      status: 'failed',
      state: 'failed',
      completedTargets: 0,
      failedTargets: 2,
    });
    await expectResultsMatchTargets(hit, { [fb.id]: 'failed', [li.id]: 'failed' });
  });

  it('should deliver approval.requested, approval.approved (then post.published) and approval.rejected', async () => {
    await t
      .http()
      .put('/v1/policy')
      .set(tenant.auth)
      .send({ requireApproval: true, approverUserIds: [tenant.userId] })
      .expect(200);
    try {
      // Publish now → pending approval → approved → queued → published by the worker.
      const approvedId = await createPost({ content: text('to approve'), accountIds: [fb.id], publishNow: true });
      expect(createdState.get(approvedId)).toBe('pending_approval');
      changed('approval.requested', approvedId);
      const [requested] = await arrived('approval.requested', approvedId);
      expect(requested.body.data).toMatchObject({
        postId: approvedId,
        status: 'pending_approval',
        state: 'pending_approval',
        approverUserIds: [tenant.userId],
      });
      const approve = await t.http().post(`/v1/posts/${approvedId}/approve`).set(tenant.auth).expect(200);
      expect(approve.body.post.state).toBe('queued');
      changed('approval.approved', approvedId);
      changed('post.published', approvedId);
      const [approved] = await arrived('approval.approved', approvedId);
      expect(approved.body.data).toMatchObject({
        postId: approvedId,
        status: 'approved',
        state: 'approved',
        approvedByUserId: tenant.userId,
      });
      const [published] = await arrived('post.published', approvedId);
      await expectResultsMatchTargets(published, { [fb.id]: 'success' });

      // A draft sent for publishing → pending approval → rejected.
      const rejectedId = await createPost({ content: text('to reject'), accountIds: [fb.id, li.id] });
      const publish = await t.http().post(`/v1/posts/${rejectedId}/publish`).set(tenant.auth).expect(200);
      expect(publish.body.post.state).toBe('pending_approval');
      changed('approval.requested', rejectedId);
      await arrived('approval.requested', rejectedId);
      await t.http().post(`/v1/posts/${rejectedId}/reject`).set(tenant.auth).send({ reason: 'Off brand' }).expect(200);
      changed('approval.rejected', rejectedId);
      const [rejected] = await arrived('approval.rejected', rejectedId);
      expect(rejected.body.data).toMatchObject({
        postId: rejectedId,
        status: 'rejected',
        state: 'rejected',
        reason: 'Off brand',
        rejectedByUserId: tenant.userId,
      });
    } finally {
      await t.http().put('/v1/policy').set(tenant.auth).send({ requireApproval: false }).expect(200);
    }
  });

  it('should deliver comment.received once per new comment on the synced facebook account', async () => {
    await t.http().patch(`/v1/accounts/${fb.id}`).set(tenant.auth).send({ commentSync: true }).expect(200);
    const sync = t.app.get(CommentsSyncService);
    const first = await sync.syncAll();
    expect(first.failed).toBe(0);
    // A second run finds nothing new, so it announces nothing.
    expect((await sync.syncAll()).stored).toBe(0);

    const comments: CommentBody[] = [];
    let cursor: string | null = null;
    do {
      const res = await t
        .http()
        .get('/v1/comments')
        .query({ accountId: fb.id, limit: 100, ...(cursor ? { cursor } : {}) })
        .set(tenant.auth)
        .expect(200);
      comments.push(...(res.body.comments as CommentBody[]));
      cursor = res.body.nextCursor as string | null;
    } while (cursor);
    // Sandbox items carry 3–12 comments each; every stored one is announced below.
    expect(comments.length).toBeGreaterThanOrEqual(3);
    const facebookPosts = new Set(
      receiver
        .at(PATH)
        .filter((h) => ['post.published', 'post.partially_published'].includes(h.body.type))
        .map((h) => String(h.body.data.postId)),
    );
    for (const c of comments) {
      changed('comment.received', c.id);
      const [hit] = await arrived('comment.received', c.id);
      expect(hit.body.data).toMatchObject({
        profileId: tenant.profileId,
        comment: { id: c.id, accountId: fb.id, postId: c.postId },
      });
      expect(facebookPosts.has(c.postId)).toBe(true);
    }
  });

  it('should deliver account.disconnected once when an account is disconnected', async () => {
    await t.http().delete(`/v1/accounts/${li.id}`).set(tenant.auth).expect(200);
    // Disconnecting twice changes nothing, so it announces nothing.
    await t.http().delete(`/v1/accounts/${li.id}`).set(tenant.auth).expect(200);
    changed('account.disconnected', li.id);
    const [hit] = await arrived('account.disconnected', li.id);
    expect(hit.body.data).toMatchObject({
      profileId: tenant.profileId,
      reason: 'requested',
      account: expect.objectContaining({ id: li.id, status: 'disconnected' }),
    });
  });

  it('should have delivered every event type, each signed, once per state change', async () => {
    // Settled: every event of the profile relayed and fanned out, every delivery succeeded and
    // received, and no job left (queued, running or delayed) that could send or publish again.
    // The queues are read before the rows: a job that was still running when the queues were read
    // shows up as one, and one that ended before it has its event row (or delivery) in the read
    // after it; read the other way round, a job ending between the two reads could leave an event
    // that neither saw. No quiet window after this: with no job left and every delivery succeeded
    // (its row is written after its request was received), nothing is left that could send again.
    await eventually(async () => {
      const queues = t.app.get(QueueService);
      const live = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;
      const [events, webhooks, publish] = await Promise.all(
        (['events', 'webhooks', 'publish'] as const).map((q) => queues.queue(q).getJobs([...live])),
      );
      const [{ open }] = await t.ds.query<{ open: number }[]>(
        `SELECT count(*)::int AS open FROM events WHERE profile_id = $1 AND (dispatched_at IS NULL OR handled_at IS NULL)`,
        [tenant.profileId],
      );
      const deliveries = await t.ds.query<{ status: string }[]>(
        `SELECT status FROM webhook_deliveries WHERE subscription_id = $1`,
        [subscriptionId],
      );
      // A scheduled post's delayed job is due only far ahead; any other publish job is work still to do.
      const publishing = publish.filter((job) => job.name !== 'schedule-post');
      return (
        open === 0 &&
        deliveries.every((d) => d.status === 'succeeded') &&
        receiver.at(PATH).length >= deliveries.length &&
        events.length + webhooks.length + publishing.length === 0
      );
    });
    const all = receiver.at(PATH);

    // Every deliverable type was produced by a real flow above.
    expect(new Set(all.map((h) => h.body.type))).toEqual(new Set(WEBHOOK_EVENT_TYPES));

    for (const hit of all) {
      const { id, type, data } = hit.body;
      const header = hit.headers['service-signature'];
      expect(typeof header).toBe('string');
      expect(stripeSignature.verifyHeader(hit.raw, header as string, secret, 300)).toBe(true);
      expect(hit.headers['service-event']).toBe(type);
      expect(hit.headers['service-event-id']).toBe(id);
      expect(hit.headers['service-delivery-attempt']).toBe('1');
      expect(hit.headers['content-type']).toBe('application/json');
      expect(Number.isFinite(Date.parse(hit.body.createdAt))).toBe(true);
      expect(data.profileId).toBe(tenant.profileId);
      if (!isPostEvent(type)) continue;

      const post = data as unknown as PostEventBody;
      expect(typeof post.postId).toBe('string');
      expect(post.status).toBe(
        type === 'post.created' ? createdState.get(post.postId) : STATUS_OF[type as WebhookEventType],
      );
      expect(post.state).toBe(post.status);
      expect(Array.isArray(post.results)).toBe(true);
      for (const r of post.results) {
        expect(['success', 'failed']).toContain(r.status);
        if (r.status === 'success') expect(r.result?.id).toEqual(expect.stringMatching(/.+/));
        else expect(r.error).toEqual(expect.stringMatching(/.+/));
      }
      expect(post.completedTargets).toBe(post.results.filter((r) => r.status === 'success').length);
      expect(post.failedTargets).toBe(post.results.filter((r) => r.status === 'failed').length);
    }

    // Exactly once: one request per delivery id, and per (type, subject) as many distinct ids as state changes.
    const requestsPerId = new Map<string, number>();
    for (const hit of all) requestsPerId.set(hit.body.id, (requestsPerId.get(hit.body.id) ?? 0) + 1);
    expect([...requestsPerId.entries()].filter(([, n]) => n > 1)).toEqual([]);
    const idsPerKey = new Map<string, Set<string>>();
    for (const hit of all) {
      const key = `${hit.body.type} ${subjectOf(hit)}`;
      idsPerKey.set(key, (idsPerKey.get(key) ?? new Set<string>()).add(hit.body.id));
    }
    const delivered = Object.fromEntries([...idsPerKey.entries()].map(([k, ids]) => [k, ids.size]));
    expect(delivered).toEqual(Object.fromEntries(expected));

    // The audit trail agrees: each deliverable event of the profile became exactly one delivery, received once.
    const events = await t.ds.query<{ id: string }[]>(
      `SELECT id FROM events WHERE profile_id = $1 AND type = ANY($2::text[])`,
      [tenant.profileId, [...WEBHOOK_EVENT_TYPES]],
    );
    const deliveries = await t.ds.query<
      {
        id: string;
        event_id: string;
        status: string;
        attempts: number;
      }[]
    >(`SELECT id, event_id, status, attempts FROM webhook_deliveries WHERE subscription_id = $1`, [subscriptionId]);
    expect(deliveries.map((d) => d.event_id).sort()).toEqual(events.map((e) => e.id).sort());
    expect(deliveries.map((d) => d.id).sort()).toEqual([...requestsPerId.keys()].sort());
    expect(deliveries.filter((d) => d.status !== 'succeeded' || d.attempts !== 1)).toEqual([]);
  });
});
