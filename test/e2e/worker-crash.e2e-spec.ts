import { ownComments } from '@/modules/networks/kit/sandbox/sandbox-comments';
import { SandboxStore } from '@/modules/networks/kit/sandbox/sandbox-store';
import type { PlatformName } from '@/modules/networks/platform-name';
import { connectNewAccount, SandboxAccount } from '@test/support/connect-flow';
import { holdNextAnswer } from '@test/support/hold-answer';
import { FINAL_STATES, postState, sandboxItems, targetsOf, waitForFinal } from '@test/support/publishing';
import { createPost, publishPost } from '@test/support/post-fixtures';
import { createApiApp, eventually, Tenant, TestApp } from '@test/support/test-app';
import { WorkerPool, WorkerProcess } from '@test/support/worker-process';

type Account = SandboxAccount;

/** Sweeps every second, so a post left in processing counts as stuck after 10 s. */
const WORKER_ENV = { SCHEDULER_SWEEP_MS: '1000', OUTBOX_POLL_MS: '200' };

/**
 * The API (with the sandbox) in this process, the worker in child processes that get SIGKILLed
 * mid-publish or mid-comment: the post must still end in a final state and nothing may be published
 * (or commented) twice.
 */
describe('worker crash', () => {
  jest.setTimeout(180_000);
  let t: TestApp;
  let tenant: Tenant;
  const workers = new WorkerPool(WORKER_ENV);
  const worker = (): Promise<WorkerProcess> => workers.start(t);

  const connect = (platform: PlatformName): Promise<Account> => connectNewAccount(t, tenant, platform);

  beforeAll(async () => ({ t, tenant } = await createApiApp({ env: WORKER_ENV })));
  afterAll(async () => {
    await workers.killAll();
    await t.close();
  });

  it('should finish a post whose worker was killed mid-publish without publishing any target twice', async () => {
    const accounts = [await connect('facebook'), await connect('facebook'), await connect('linkedin')];
    const first = await worker();
    // LinkedIn takes the post but its answer is held until the worker is gone: the worker dies
    // with that call in flight, however long the Facebook targets take on a loaded machine.
    const linkedIn = holdNextAnswer(t, 'POST', /^\/sandbox\/linkedin\/rest\/posts(\?|$)/);
    const postId = await publishPost(t, tenant.auth, {
      // The targets go out together: LinkedIn's call is slow (~2 s, then held), Facebook's are
      // not, so the worker dies with settled targets beside one in flight.
      content: {
        contentType: 'text',
        message: `Crash test ${Date.now()}`,
        platformCaptions: { linkedin: `Crash test ${Date.now()} #sandbox-slow` },
      },
      accountIds: accounts.map((a) => a.id),
    });

    // Kill it while a call is in flight and after at least one target got its result.
    await linkedIn.answered;
    await eventually(
      async () => {
        const targets = await targetsOf(t, postId);
        return targets.some((x) => x.status === 'success') && targets.some((x) => x.status === 'publishing');
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    await first.kill();
    linkedIn.release();
    expect(await postState(t, postId)).toBe('processing');
    const left = await targetsOf(t, postId);
    expect(left.some((x) => x.status === 'publishing')).toBe(true);

    await worker();
    const final = await waitForFinal(t, postId, 120_000);
    expect(FINAL_STATES).toContain(final);
    expect(final).not.toBe('cancelled');

    const targets = await targetsOf(t, postId);
    for (const target of targets) {
      const account = accounts.find((a) => a.id === target.accountId)!;
      const items = await sandboxItems(t, account);
      // These accounts got only this post: at most one item each, and it is the recorded one.
      expect(items.length).toBeLessThanOrEqual(1);
      if (target.status === 'success') expect(items).toEqual([target.externalId]);
      else expect(target.errorCategory).toBe('unknown_outcome');
    }
    const history: { to_state: string }[] = await t.ds.query(
      `SELECT to_state FROM post_history WHERE post_id = $1 ORDER BY at`,
      [postId],
    );
    expect(history.filter((h) => h.to_state === 'processing')).toHaveLength(1);
    const events: { type: string }[] = await t.ds.query(
      `SELECT type FROM events WHERE data->>'postId' = $1 AND type = $2`,
      [postId, `post.${final}`],
    );
    expect(events).toHaveLength(1);
  });

  it('should publish a post scheduled a few seconds ahead after the worker restarts in between', async () => {
    const account = await connect('facebook');
    await workers.killAll();
    const before = await worker();
    // Far enough ahead that the creation and the kill are done before it is due, even on a loaded machine.
    const scheduledAt = new Date(Date.now() + 12_000).toISOString();
    const res = await createPost(t, tenant.auth, {
      content: `Scheduled crash test ${Date.now()}`,
      accountIds: [account.id],
      scheduledAt,
    }).expect(201);
    const postId = res.body.id as string;
    expect(await postState(t, postId)).toBe('scheduled');

    await before.kill();
    // On purpose: no worker runs while the post comes due, and nothing may move it during this window.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(scheduledAt) - Date.now()) + 500));
    expect(await postState(t, postId)).toBe('scheduled');

    await worker();
    expect(await waitForFinal(t, postId, 60_000)).toBe('published');
    const [target] = await targetsOf(t, postId);
    expect(await sandboxItems(t, account)).toEqual([target.externalId]);
  });

  it('should never send a first comment twice when the worker is killed during the comment call', async () => {
    const account = await connect('facebook');
    await worker();
    // The sandbox takes the comment, but its answer is held until the worker is gone: the worker
    // dies mid-call with the comment on the network and nothing recorded but the attempt.
    const { answered, release } = holdNextAnswer(t, 'POST', /^\/sandbox\/facebook\/.*\/comments(\?|$)/);
    const postId = await publishPost(t, tenant.auth, {
      content: `Comment crash test ${Date.now()}`,
      accountIds: [account.id],
      firstComment: 'Sent once, whatever happens',
    });
    await answered;
    const [during] = await targetsOf(t, postId);
    expect(during).toMatchObject({ status: 'success', firstCommentStatus: 'attempting' });
    await workers.killAll();
    release();

    await worker();
    expect(await waitForFinal(t, postId, 120_000)).toBe('published');
    const [target] = await targetsOf(t, postId);
    const onNetwork = await ownComments(t.app.get(SandboxStore), 'facebook', target.externalId!);
    expect(onNetwork.map((c) => c.text)).toEqual(['Sent once, whatever happens']);
    // The look-up found it: recorded as posted, with the network's id.
    expect(target).toMatchObject({ firstCommentStatus: 'success', firstCommentId: onNetwork[0].id });
    const res = await t.http().get(`/v1/posts/${postId}`).set(tenant.auth).expect(200);
    expect(res.body.post.targets[0].firstComment).toEqual({ status: 'success', id: onNetwork[0].id, error: null });
  });
});
