import { randomUUID } from 'node:crypto';
import { QueueService } from '@/common/queue/queue.service';
import { PostSchedulerProcessor } from '@/modules/posts/jobs/post-scheduler.processor';
import { connectAccount, inFuture, TestAccount } from '../support/post-fixtures';
import { createTenant, createTestApp, eventually, Tenant, TestApp } from '../support/test-app';

interface HistoryRow {
  from: string | null;
  to: string;
  at: string;
}

describe('scheduling', () => {
  let t: TestApp;
  let tenant: Tenant;
  let fb: TestAccount;

  beforeAll(async () => {
    // Worker role included (delayed jobs and the sweep run); a short sweep period.
    t = await createTestApp({ env: { PROCESS_ROLE: 'all', SCHEDULER_SWEEP_MS: '500' } });
    tenant = await createTenant(t);
    fb = await connectAccount(t, tenant, 'facebook');
  });
  afterAll(async () => t.close());

  const history = async (id: string): Promise<HistoryRow[]> =>
    (await t.http().get(`/v1/posts/${id}/history`).set(tenant.auth).expect(200)).body.history as HistoryRow[];
  const queuedAt = async (id: string): Promise<Date | null> => {
    const row = (await history(id)).find((h) => h.from === 'scheduled' && h.to === 'queued');
    return row ? new Date(row.at) : null;
  };
  const publishQueue = () => t.app.get(QueueService).queue('publish');

  it('should queue a post scheduled 2 s ahead on time', async () => {
    const scheduledAt = inFuture(2000);
    const res = await t
      .http()
      .post('/v1/posts')
      .set(tenant.auth)
      .send({ content: 'On time', accountIds: [fb.id], scheduledAt })
      .expect(201);
    expect(res.body.state).toBe('scheduled');
    const at = await eventually(() => queuedAt(res.body.id as string), { timeoutMs: 8000 });
    // The worker may publish it right after; what matters is when it left `scheduled`.
    expect(at.getTime()).toBeGreaterThanOrEqual(new Date(scheduledAt).getTime() - 1000);
    expect(at.getTime()).toBeLessThan(new Date(scheduledAt).getTime() + 2500);
  });

  it('should still queue a due post whose delayed job was lost', async () => {
    const res = await t
      .http()
      .post('/v1/posts')
      .set(tenant.auth)
      .send({ content: 'Lost job', accountIds: [fb.id], scheduledAt: inFuture(1500) })
      .expect(201);
    const id = res.body.id as string;
    await publishQueue().remove(`schedule:${id}:1`);
    expect(await publishQueue().getJob(`schedule:${id}:1`)).toBeUndefined();
    await eventually(() => queuedAt(id), { timeoutMs: 8000 });
  });

  it('should ignore the job of a superseded schedule', async () => {
    const res = await t
      .http()
      .post('/v1/posts')
      .set(tenant.auth)
      .send({ content: 'Moved', accountIds: [fb.id], scheduledAt: inFuture(3600_000) })
      .expect(201);
    const id = res.body.id as string;
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
    await eventually(
      async () => {
        const [row] = await t.ds.query<{ state: string }[]>('SELECT state FROM posts WHERE id = $1', [id]);
        return row?.state !== 'queued' || (await publishQueue().getJob(`publish:${id}:1`)) !== undefined;
      },
      { timeoutMs: 8000 },
    );
  });
});
