import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { QueueService } from '@/common/queue/queue.service';
import { PostSchedulerProcessor } from '@/modules/posts/jobs/post-scheduler.processor';
import { PostFlow } from '@/modules/posts/services/post-flow.service';
import { createPost, eventTypesOf, inFuture, setPolicy } from '@test/support/post-fixtures';
import { createApiApp, createTenant, createTestApp, eventually, Tenant, TestApp } from '@test/support/test-app';
import { insertAccount, InsertedAccount } from '@test/support/publishing';

interface HistoryRow {
  from: string | null;
  to: string;
  at: string;
}

describe('scheduling', () => {
  let t: TestApp;
  let tenant: Tenant;
  let fb: InsertedAccount;

  beforeAll(async () => {
    // Worker role included (delayed jobs and the sweep run); a short sweep period.
    t = await createTestApp({ env: { PROCESS_ROLE: 'all', SCHEDULER_SWEEP_MS: '500' } });
    tenant = await createTenant(t);
    fb = await insertAccount(t, tenant, 'facebook', { accessToken: null });
  });
  afterAll(async () => t.close());

  const history = async (id: string): Promise<HistoryRow[]> =>
    (await t.http().get(`/v1/posts/${id}/history`).set(tenant.auth).expect(200)).body.history as HistoryRow[];
  const queuedAt = async (id: string): Promise<Date | null> => {
    const row = (await history(id)).find((h) => h.from === 'scheduled' && h.to === 'queued');
    return row ? new Date(row.at) : null;
  };
  const publishQueue = () => t.app.get(QueueService).queue('publish');
  const createScheduled = async (content: string, scheduledAt: string): Promise<string> =>
    (await createPost(t, tenant.auth, { content, accountIds: [fb.id], scheduledAt }).expect(201)).body.id as string;

  it('should queue a post scheduled a few seconds ahead on time', async () => {
    // Far enough ahead for its creation to be done before it is due on a loaded machine.
    const scheduledAt = inFuture(5000);
    const res = await createPost(t, tenant.auth, { content: 'On time', accountIds: [fb.id], scheduledAt }).expect(201);
    expect(res.body.state).toBe('scheduled');
    const at = await eventually(() => queuedAt(res.body.id as string));
    // The worker may publish it right after; what matters is when it left `scheduled`: at its time, never before.
    expect(at.getTime()).toBeGreaterThanOrEqual(new Date(scheduledAt).getTime());
  });

  it('should still queue a due post whose delayed job was lost', async () => {
    const id = await createScheduled('Lost job', inFuture(5000));
    await publishQueue().remove(`schedule:${id}:1`);
    expect(await publishQueue().getJob(`schedule:${id}:1`)).toBeUndefined();
    await eventually(() => queuedAt(id));
  });

  it('should ignore the job of a superseded schedule', async () => {
    const id = await createScheduled('Moved', inFuture(3600_000));
    await t
      .http()
      .put(`/v1/posts/${id}`)
      .set(tenant.auth)
      .send({ scheduledAt: inFuture(7200_000) })
      .expect(200);
    // Even a stale job that survived (and a due time) changes nothing: its version is old.
    await t.ds.query(`UPDATE posts SET scheduled_at = now() + interval '1 hour' WHERE id = $1`, [id]);
    expect(await t.app.get(PostSchedulerProcessor).promote(id, 1)).toBeNull();
    expect((await history(id)).map((h) => h.to)).toEqual(['scheduled', 'scheduled']);
  });

  it('should re-enqueue a queued post whose publish job is missing', async () => {
    const id = randomUUID();
    await t.ds.query(
      `INSERT INTO posts (id, workspace_id, profile_id, state, content_type, message, content, updated_at)
       VALUES ($1, $2, $3, 'queued', 'text', 'Orphan', '{"contentType":"text","message":"Orphan"}', now() - interval '1 minute')`,
      [id, tenant.workspaceId, tenant.profileId],
    );
    await t.ds.query(
      `INSERT INTO post_targets (post_id, profile_id, account_id, platform, page_name) VALUES ($1, $2, $3, 'facebook', 'Page')`,
      [id, tenant.profileId, fb.id],
    );
    // The sweep adds `publish:<id>:1`; the publishing worker (when registered) then takes the post on.
    await eventually(async () => {
      const [row] = await t.ds.query<{ state: string }[]>('SELECT state FROM posts WHERE id = $1', [id]);
      return row?.state !== 'queued' || (await publishQueue().getJob(`publish:${id}:1`)) !== undefined;
    });
  });
});

/** A post scheduled an hour ahead through the API (tests then make it due). */
async function createInAnHour(app: TestApp, who: Tenant, accountId: string): Promise<string> {
  const body = { content: `Due ${randomUUID()}`, accountIds: [accountId], scheduledAt: inFuture(3600_000) };
  return (await createPost(app, who.auth, body).expect(201)).body.id as string;
}

/**
 * Many posts due at once, two processes promoting them at the same time (API role: no worker of
 * their own, so the test drives the scheduler): each post leaves `scheduled` exactly once, with
 * one history row, one publish job for its new version and the events of the one-by-one path.
 */
describe('batch promotion of due posts by two processes at once', () => {
  const SEEDED = 600;
  let a: TestApp;
  let b: TestApp;
  let tenant: Tenant;
  let review: Tenant;
  let fb: InsertedAccount;

  beforeAll(async () => {
    ({ t: a, tenant } = await createApiApp());
    b = await createTestApp({ shareWith: a, env: { PROCESS_ROLE: 'api' } });
    review = await createTenant(a);
    fb = await insertAccount(a, tenant, 'facebook');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const create = (who: Tenant, accountId: string): Promise<string> => createInAnHour(a, who, accountId);

  it('should promote each due post exactly once, with its publish job and no extra event', async () => {
    // Through the API (history and post.scheduled as a client makes them), then many more as rows.
    const viaApi: string[] = [];
    for (let i = 0; i < 20; i++) viaApi.push(await create(tenant, fb.id));
    const seeded = await a.ds.query<{ id: string }[]>(
      `WITH p AS (
         INSERT INTO posts (workspace_id, profile_id, state, content_type, message, content, scheduled_at)
         SELECT $1, $2, 'scheduled', 'text', 'Seeded ' || g, jsonb_build_object('contentType', 'text', 'message', 'Seeded ' || g), now() + interval '1 hour'
           FROM generate_series(1, $3) g RETURNING id),
       t AS (
         INSERT INTO post_targets (post_id, profile_id, account_id, platform, page_name, status)
         SELECT p.id, $2, $4, 'facebook', 'Page', 'pending' FROM p),
       h AS (
         INSERT INTO post_history (post_id, from_state, to_state, reason, actor)
         SELECT p.id, NULL, 'scheduled', 'created', '{"type":"system","id":null}' FROM p)
       SELECT id FROM p`,
      [tenant.workspaceId, tenant.profileId, SEEDED, fb.id],
    );
    // A profile that asks for review since its posts were scheduled: those go to pending_approval.
    const reviewFb = await insertAccount(a, review, 'facebook');
    const forReview = [await create(review, reviewFb.id), await create(review, reviewFb.id)];
    await setPolicy(a, review, { requireApproval: true, approverUserIds: [review.userId] });
    // A post due later stays scheduled.
    const later = await create(tenant, fb.id);
    const ids = [...viaApi, ...seeded.map((r) => r.id)];
    await a.ds.query(`UPDATE posts SET scheduled_at = now() - interval '1 second' WHERE id = ANY($1)`, [
      [...ids, ...forReview],
    ]);

    const runs = await Promise.all([
      a.app.get(PostSchedulerProcessor).promoteDue(50),
      b.app.get(PostSchedulerProcessor).promoteDue(50),
      a.app.get(PostSchedulerProcessor).promoteDue(50),
      b.app.get(PostSchedulerProcessor).promoteDue(50),
    ]);
    expect(runs.reduce((n, r) => n + r, 0)).toBe(ids.length + forReview.length);
    // Both processes took a share (SKIP LOCKED: they claim different rows).
    expect(runs[0] + runs[2]).toBeGreaterThan(0);
    expect(runs[1] + runs[3]).toBeGreaterThan(0);

    const rows = await a.ds.query<{ state: string; version: number; n: number }[]>(
      `SELECT p.state, p.version, count(*)::int AS n FROM posts p WHERE p.id = ANY($1) GROUP BY 1, 2`,
      [ids],
    );
    expect(rows).toEqual([{ state: 'queued', version: 2, n: ids.length }]);
    const moves = await a.ds.query<{ post_id: string; from_state: string; n: number }[]>(
      `SELECT post_id, from_state, count(*)::int AS n FROM post_history
        WHERE post_id = ANY($1) AND to_state = 'queued' GROUP BY 1, 2`,
      [ids],
    );
    expect(moves).toHaveLength(ids.length);
    expect(moves.every((m) => m.from_state === 'scheduled' && m.n === 1)).toBe(true);
    // The one-by-one path writes no event for scheduled → queued: neither does the batch.
    const events = await a.ds.query<{ type: string; n: number }[]>(
      `SELECT type, count(*)::int AS n FROM events WHERE data->>'postId' = ANY($1) GROUP BY 1 ORDER BY 1`,
      [viaApi],
    );
    expect(events).toEqual([
      { type: 'post.created', n: viaApi.length },
      { type: 'post.scheduled', n: viaApi.length },
    ]);
    const publish = a.app.get(QueueService).queue('publish');
    const jobs = await Promise.all(ids.map((id) => publish.getJob(`publish:${id}:2`)));
    expect(jobs.filter((j) => j?.data.postId)).toHaveLength(ids.length);

    for (const id of forReview) {
      const [post] = await a.ds.query<{ state: string }[]>('SELECT state FROM posts WHERE id = $1', [id]);
      expect(post.state).toBe('pending_approval');
      expect(await eventTypesOf(a, id)).toEqual(['approval.requested', 'post.created', 'post.scheduled']);
      expect(await publish.getJob(`publish:${id}:2`)).toBeUndefined();
    }
    const [stays] = await a.ds.query<{ state: string }[]>('SELECT state FROM posts WHERE id = $1', [later]);
    expect(stays.state).toBe('scheduled');

    // Run again: nothing is due any more, nothing changes.
    expect(await b.app.get(PostSchedulerProcessor).promoteDue(50)).toBe(0);
    const [{ n }] = await a.ds.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM post_history WHERE post_id = ANY($1) AND to_state = 'queued'`,
      [ids],
    );
    expect(n).toBe(ids.length);
  });
});

/**
 * One due post whose promotion fails (here a database error while it goes to pending_approval)
 * must not hold back the others: it stays `scheduled` for the next sweep, with a warning, and a
 * run whose every claimable post fails still ends.
 */
describe('batch promotion with a due post that fails', () => {
  let a: TestApp;
  let tenant: Tenant;
  let review: Tenant;
  let fb: InsertedAccount;
  let reviewFb: InsertedAccount;

  beforeAll(async () => {
    ({ t: a, tenant } = await createApiApp());
    review = await createTenant(a);
    fb = await insertAccount(a, tenant, 'facebook');
    reviewFb = await insertAccount(a, review, 'facebook');
  });
  afterAll(async () => a?.close());
  afterEach(() => jest.restoreAllMocks());

  const create = (who: Tenant, accountId: string): Promise<string> => createInAnHour(a, who, accountId);
  const stateOf = async (id: string): Promise<string> =>
    (await a.ds.query<{ state: string }[]>('SELECT state FROM posts WHERE id = $1', [id]))[0].state;

  it('should promote the other due posts and leave the failing one scheduled for the next sweep', async () => {
    const poison = await create(review, reviewFb.id);
    const otherReview = await create(review, reviewFb.id);
    const ordinary = [await create(tenant, fb.id), await create(tenant, fb.id), await create(tenant, fb.id)];
    await setPolicy(a, review, { requireApproval: true, approverUserIds: [review.userId] });
    // The failing post is due first, so it is in the first batch (and alone in a batch of one).
    await a.ds.query(`UPDATE posts SET scheduled_at = now() - interval '2 minutes' WHERE id = $1`, [poison]);
    await a.ds.query(`UPDATE posts SET scheduled_at = now() - interval '1 minute' WHERE id = ANY($1)`, [
      [otherReview, ...ordinary],
    ]);

    // Its move to pending_approval writes its rows, then the database fails the transaction.
    const flow = a.app.get(PostFlow);
    const goLive = flow.goLive.bind(flow);
    jest.spyOn(flow, 'goLive').mockImplementation(async (m, post, ...rest) => {
      const after = await goLive(m, post, ...rest);
      if (post.id === poison) await m.query('SELECT 1 / 0');
      return after;
    });
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const scheduler = a.app.get(PostSchedulerProcessor);

    // A batch of three holds the failing post, the other review post and an ordinary one.
    expect(await scheduler.promoteDue(3)).toBe(4);
    for (const id of ordinary) {
      expect(await stateOf(id)).toBe('queued');
      expect(await a.app.get(QueueService).queue('publish').getJob(`publish:${id}:2`)).toBeDefined();
    }
    expect(await stateOf(otherReview)).toBe('pending_approval');
    expect(await eventTypesOf(a, otherReview)).toContain('approval.requested');
    expect(await stateOf(poison)).toBe('scheduled');
    expect(await eventTypesOf(a, poison)).toEqual(['post.created', 'post.scheduled']);
    expect((await a.http().get(`/v1/posts/${poison}/history`).set(review.auth).expect(200)).body.history).toHaveLength(
      1,
    );
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ postId: poison }), expect.any(String));

    // Only the failing post is due: a full batch of failures, and the run still ends.
    expect(await scheduler.promoteDue(1)).toBe(0);
    expect(await stateOf(poison)).toBe('scheduled');

    // Once the fault is gone, the next run promotes it.
    jest.restoreAllMocks();
    expect(await scheduler.promoteDue()).toBe(1);
    expect(await stateOf(poison)).toBe('pending_approval');
    expect(await eventTypesOf(a, poison)).toEqual(['approval.requested', 'post.created', 'post.scheduled']);
  });
});
