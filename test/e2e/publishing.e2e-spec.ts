import type { PlatformName } from '@/modules/networks/platform-name';
import { QueueService } from '@/common/queue/queue.service';
import { SandboxStore } from '@/modules/networks/kit/sandbox/sandbox-store';
import { TargetPublisher } from '@/modules/posts/publishing/target-publisher';
import { PostTransitions } from '@/modules/posts/services/post-transitions';
import { connectNewAccount, SandboxAccount } from '@test/support/connect-flow';
import { waitUntilBlocked } from '@test/support/e2e-helpers';
import { holdNextRequest } from '@test/support/hold-answer';
import {
  postEvents,
  postState,
  publishJobSettled,
  sandboxItems,
  targetsOf,
  waitForFinal,
} from '@test/support/publishing';
import { publishPost } from '@test/support/post-fixtures';
import { bounded, createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

type Account = SandboxAccount;

/** Publishing end to end: the API creates posts, the worker publishes them to the sandbox networks. */
describe('publishing (sandbox networks)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let fb1: Account;
  let fb2: Account;
  let li: Account;
  let seq = 0;

  const connect = (platform: PlatformName): Promise<Account> => connectNewAccount(t, tenant, platform);

  async function targetsFor(postId: string, ...accounts: Account[]) {
    const all = await targetsOf(t, postId);
    return accounts.map((a) => all.find((x) => x.accountId === a.id)!);
  }

  /** A unique text per post, so sandbox items can be told apart. */
  const text = (words = ''): string => `Publishing test ${++seq} ${Date.now()} ${words}`.trim();

  async function publishNow(content: string, accounts: Account[]): Promise<string> {
    return publishPost(t, tenant.auth, { content, accountIds: accounts.map((a) => a.id) });
  }

  beforeAll(async () => {
    t = await createTestApp();
    t.app.get(TargetPublisher).setRetryPolicy({ baseDelayMs: 50, maxDelayMs: 200 });
    tenant = await createTenant(t);
    fb1 = await connect('facebook');
    fb2 = await connect('facebook');
    li = await connect('linkedin');
  });
  afterAll(async () => t.close());

  it('should publish to every account, end published and write one post.published event', async () => {
    const postId = await publishNow(text(), [fb1, fb2, li]);
    expect(await waitForFinal(t, postId)).toBe('published');

    const targets = await targetsOf(t, postId);
    expect(targets.map((x) => x.status)).toEqual(['success', 'success', 'success']);
    for (const target of targets) {
      const account = [fb1, fb2, li].find((a) => a.id === target.accountId)!;
      expect(await sandboxItems(t, account)).toContain(target.externalId);
    }
    const events = await postEvents(t, postId);
    expect(events.filter((e) => e.type !== 'post.created').map((e) => e.type)).toEqual(['post.published']);
    const published = events.find((e) => e.type === 'post.published')!;
    expect(published.data).toMatchObject({
      postId,
      status: 'published',
      completedTargets: 3,
      failedTargets: 0,
      profileId: tenant.profileId,
    });
    expect(published.data.results).toEqual(
      expect.arrayContaining(
        targets.map((x) =>
          expect.objectContaining({
            targetId: x.id,
            platform: x.platform,
            status: 'success',
            result: expect.objectContaining({ id: x.externalId }),
          }),
        ),
      ),
    );
  });

  it('should commit the move to publishing and the adapter progress before the creating call reaches the network', async () => {
    // The move is held to go with the adapter's first saved progress (one statement): both committed before the call.
    // The test keeps the target's row locked until that statement waits for it: the creating call, held before the
    // sandbox handles it, must not arrive before the lock is let go (a move sent beside the call, not before it, would).
    const call = holdNextRequest(t, 'POST', /^\/sandbox\/facebook\/.*\/feed(\?|$)/);
    let arrivedWhileLocked: boolean | undefined;
    let locked = true;
    void call.held.then(() => (arrivedWhileLocked = locked));
    const queue = t.app.get(QueueService).queue('publish');
    const rowLock = t.ds.createQueryRunner();
    await queue.pause();
    let postId: string;
    try {
      postId = await publishNow(text(), [fb1]);
      await rowLock.connect();
      await rowLock.startTransaction();
      const [{ id }] = await targetsOf(t, postId);
      await rowLock.query('SELECT 1 FROM post_targets WHERE id = $1 FOR UPDATE', [id]);
      await queue.resume();
      // The publisher's move to publishing waits for the row: let go only then.
      await waitUntilBlocked(t, rowLock, /\bUPDATE post_targets\b[\s\S]*'publishing'/);
    } finally {
      locked = false;
      if (rowLock.isTransactionActive) await rowLock.rollbackTransaction();
      await rowLock.release();
      await queue.resume();
    }
    // Let go: the move commits, then the call goes out.
    try {
      await call.held;
      expect(arrivedWhileLocked).toBe(false);
      const [target] = await targetsOf(t, postId);
      expect(target.status).toBe('publishing');
      expect(target.attempts).toBe(1);
      expect(target.publishState).toMatchObject({ kind: 'feed', sentAt: expect.any(String) });
    } finally {
      call.release();
    }
    expect(await waitForFinal(t, postId)).toBe('published');
    const [done] = await targetsOf(t, postId);
    expect([done.status, done.attempts]).toEqual(['success', 1]);
    expect(done.publishState).toMatchObject({ postId: done.externalId });
  });

  it('should send each target its own text: account override, then platform caption, then the message', async () => {
    const message = text('base');
    const postId = await publishPost(t, tenant.auth, {
      content: {
        message,
        platformCaptions: { linkedin: `${message} for LinkedIn` },
        perAccount: { [fb2.id]: { message: `${message} for page two` } },
      },
      accountIds: [fb1.id, fb2.id, li.id],
    });
    expect(await waitForFinal(t, postId)).toBe('published');
    const [t1, t2, t3] = await targetsFor(postId, fb1, fb2, li);
    const store = t.app.get(SandboxStore);
    expect((await store.get<{ message: string }>(['facebook', 'item', t1.externalId!]))?.message).toBe(message);
    expect((await store.get<{ message: string }>(['facebook', 'item', t2.externalId!]))?.message).toBe(
      `${message} for page two`,
    );
    expect((await store.get<{ commentary: string }>(['linkedin', 'post', t3.externalId!]))?.commentary).toBe(
      `${message} for LinkedIn`,
    );
  });

  it('should end partially_published with the failing platform network message, and retry only that target', async () => {
    const postId = await publishNow(text('#sandbox-fail:linkedin'), [fb1, li]);
    expect(await waitForFinal(t, postId)).toBe('partially_published');
    const [fbTarget, liTarget] = await targetsFor(postId, fb1, li);
    expect(fbTarget).toMatchObject({ platform: 'facebook', status: 'success' });
    expect(liTarget).toMatchObject({ platform: 'linkedin', status: 'failed' });
    expect(liTarget.error).toContain('#sandbox-fail');
    expect(liTarget.errorCategory).toEqual(expect.any(String));
    const event = (await postEvents(t, postId)).find((e) => e.type === 'post.partially_published')!;
    expect(event.data).toMatchObject({ completedTargets: 1, failedTargets: 1 });
    expect(event.data.results).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          targetId: fbTarget.id,
          status: 'success',
          result: expect.objectContaining({ id: fbTarget.externalId }),
        }),
        expect.objectContaining({
          targetId: liTarget.id,
          status: 'failed',
          error: liTarget.error,
          errorCategory: liTarget.errorCategory,
        }),
      ]),
    );

    // The magic word is still in the text: the retried target fails again, the other is not re-sent.
    const fbItems = (await sandboxItems(t, fb1)).length;
    await t.http().post(`/v1/posts/${postId}/retry`).set(tenant.auth).send({}).expect(200);
    expect(await waitForFinal(t, postId)).toBe('partially_published');
    const [fbAfter, liAfter] = await targetsFor(postId, fb1, li);
    expect(fbAfter.externalId).toBe(fbTarget.externalId);
    expect(fbAfter.attempts).toBe(1);
    expect(liAfter.attempts).toBe(2);
    expect((await sandboxItems(t, fb1)).length).toBe(fbItems);
    expect((await postEvents(t, postId)).filter((e) => e.type === 'post.partially_published')).toHaveLength(2);
  });

  it('should republish only the failed target on retry, keeping the successful network id', async () => {
    // The flaky network fails the LinkedIn target's first run; the retry gets through.
    const postId = await publishNow(text('#sandbox-flaky:linkedin'), [fb2, li]);
    expect(await waitForFinal(t, postId)).toBe('partially_published');
    const [fbTarget, liTarget] = await targetsFor(postId, fb2, li);
    expect(liTarget).toMatchObject({ status: 'failed', errorCategory: 'network_error' });
    expect(fbTarget.status).toBe('success');
    const fbItems = await sandboxItems(t, fb2);
    const liItems = await sandboxItems(t, li);

    await t.http().post(`/v1/posts/${postId}/retry`).set(tenant.auth).send({}).expect(200);
    expect(await waitForFinal(t, postId)).toBe('published');
    const [fbAfter, liAfter] = await targetsFor(postId, fb2, li);
    expect(fbAfter.externalId).toBe(fbTarget.externalId);
    expect(fbAfter.updatedAt.getTime()).toBe(fbTarget.updatedAt.getTime());
    expect(liAfter).toMatchObject({ status: 'success', error: null, errorCategory: null });
    expect(await sandboxItems(t, fb2)).toEqual(fbItems);
    expect(await sandboxItems(t, li)).toEqual([liAfter.externalId, ...liItems]);
    const types = (await postEvents(t, postId)).map((e) => e.type).filter((x) => x !== 'post.created');
    expect(types).toEqual(['post.partially_published', 'post.published']);
  });

  it('should end failed with post.failed when every target fails', async () => {
    const postId = await publishNow(text('#sandbox-fail'), [fb1, li]);
    expect(await waitForFinal(t, postId)).toBe('failed');
    const targets = await targetsOf(t, postId);
    expect(targets.every((x) => x.status === 'failed' && x.error && x.errorCategory)).toBe(true);
    const failed = (await postEvents(t, postId)).filter((e) => e.type === 'post.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0].data).toMatchObject({ completedTargets: 0, failedTargets: 2 });
  });

  it('should ride out a transient failure inside the attempt', async () => {
    const postId = await publishNow(text('#sandbox-transient:facebook'), [fb1]);
    expect(await waitForFinal(t, postId)).toBe('published');
    const [target] = await targetsOf(t, postId);
    expect(target.attempts).toBe(1);
    expect((await sandboxItems(t, fb1)).filter((id) => id === target.externalId)).toHaveLength(1);
  });

  describe('a cancel racing the worker', () => {
    const publishQueue = () => t.app.get(QueueService).queue('publish');

    /** The cancel won: once no worker is left with the post's job, it is still cancelled and nothing went out. */
    async function expectCancelled(postId: string): Promise<string> {
      expect(await waitForFinal(t, postId)).toBe('cancelled');
      const job = await publishJobSettled(t, `publish:${postId}:1`);
      expect(await postState(t, postId)).toBe('cancelled');
      const [target] = await targetsOf(t, postId);
      expect([target.status, target.externalId]).toEqual(['pending', null]);
      expect((await postEvents(t, postId)).map((e) => e.type)).not.toContain('post.published');
      return job;
    }

    /** The worker won: the cancel was refused, the post published once. */
    async function expectPublished(postId: string, del: { status: number; body: { error?: { code: string } } }) {
      expect(del.status).toBe(400);
      expect(del.body.error?.code).toBe('invalid_state_transition');
      expect(await waitForFinal(t, postId)).toBe('published');
      expect((await postEvents(t, postId)).map((e) => e.type)).not.toContain('post.cancelled');
      const [target] = await targetsOf(t, postId);
      expect((await sandboxItems(t, fb1)).filter((id) => id === target.externalId)).toHaveLength(1);
    }

    it('should cancel a post whose job no worker has taken yet, and drop the job', async () => {
      await publishQueue().pause();
      let postId: string;
      try {
        postId = await publishNow(text(), [fb1]);
        expect(await publishQueue().getJob(`publish:${postId}:1`)).toBeDefined();
        await t.http().delete(`/v1/posts/${postId}`).set(tenant.auth).expect(200);
      } finally {
        await publishQueue().resume();
      }
      expect(await expectCancelled(postId)).toBe('gone');
    });

    it("should cancel a post whose job a worker took before its move to processing: the worker's move loses", async () => {
      const transitions = t.app.get(PostTransitions);
      const gated = transitions.transitionGatedReading.bind(transitions);
      let postId = '';
      let reached: () => void = () => undefined;
      const atMove = new Promise<void>((r) => (reached = r));
      let go: () => void = () => undefined;
      const cancelled = new Promise<void>((r) => (go = r));
      const spy = jest.spyOn(transitions, 'transitionGatedReading').mockImplementation(async (m, post, ...rest) => {
        if (post.id === postId) {
          reached();
          await cancelled;
        }
        return gated(m, post, ...rest);
      });
      try {
        await publishQueue().pause();
        try {
          postId = await publishNow(text(), [fb1]);
        } finally {
          await publishQueue().resume();
        }
        await bounded(atMove, 30_000, "the worker's move to processing");
        await t.http().delete(`/v1/posts/${postId}`).set(tenant.auth).expect(200);
      } finally {
        go();
        spy.mockRestore();
      }
      expect(await expectCancelled(postId)).toBe('completed');
    });

    it('should refuse to cancel a post whose worker is calling the network, and publish it', async () => {
      const call = holdNextRequest(t, 'POST', /^\/sandbox\/facebook\/.*\/feed(\?|$)/);
      let postId: string;
      let del: { status: number; body: { error?: { code: string } } };
      try {
        postId = await publishNow(text(), [fb1]);
        await bounded(call.held, 30_000, "the worker's call to the network");
        del = await t.http().delete(`/v1/posts/${postId}`).set(tenant.auth);
      } finally {
        call.release();
      }
      await expectPublished(postId, del);
    });

    it('should never let a post be both cancelled and published when a cancel races the worker', async () => {
      const seen = { cancelled: 0, published: 0 };
      const itemsBefore = (await sandboxItems(t, fb1)).length;
      for (let i = 0; i < 20; i++) {
        // Odd rounds hold the queue so the job and the cancel are released together; even rounds cancel at once.
        if (i % 2) await publishQueue().pause();
        const postId = await publishNow(text(`race ${i}`), [fb1]);
        const [del] = await Promise.all([
          t.http().delete(`/v1/posts/${postId}`).set(tenant.auth),
          i % 2 ? publishQueue().resume() : Promise.resolve(),
        ]);
        expect([200, 400]).toContain(del.status);
        if (del.status === 200) {
          seen.cancelled += 1;
          await expectCancelled(postId);
        } else {
          seen.published += 1;
          await expectPublished(postId, del);
        }
      }
      // The network got exactly one item per post that was published, none for a cancelled one.
      expect((await sandboxItems(t, fb1)).length - itemsBefore).toBe(seen.published);
    });
  });
});
