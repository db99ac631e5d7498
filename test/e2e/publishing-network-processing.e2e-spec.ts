import type { PlatformName } from '@/modules/networks/platform-name';
import { connectNewAccount, SandboxAccount } from '@test/support/connect-flow';
import { postEvents, postState, sandboxItems, targetsOf, waitForFinal } from '@test/support/publishing';
import { publishPost } from '@test/support/post-fixtures';
import { createApiApp, eventually, Tenant, TestApp } from '@test/support/test-app';
import { WorkerPool, WorkerProcess } from '@test/support/worker-process';

type Account = SandboxAccount;

/** The sandbox's TikTok keeps a #sandbox-review post in moderation this long. */
const REVIEW_MS = 8000;
/** The worker waits 1 s inside an attempt (instead of ~65 s), then checks back from 0.5 s on. */
const WORKER_ENV = {
  NETWORK_PROCESSING_WAIT_MS: '1000',
  NETWORK_CHECK_BASE_MS: '500',
  SCHEDULER_SWEEP_MS: '1000',
  OUTBOX_POLL_MS: '200',
};

/**
 * A network still processing a post after the in-attempt wait (TikTok moderation here): the target
 * waits on the network, the worker lets go, follow-up checks settle it; never sent twice, also
 * across a worker restart.
 */
describe('slow network processing', () => {
  jest.setTimeout(180_000);
  let t: TestApp;
  let tenant: Tenant;
  const workers = new WorkerPool(WORKER_ENV);
  const worker = (): Promise<WorkerProcess> => workers.start(t);

  const connect = (platform: PlatformName): Promise<Account> => connectNewAccount(t, tenant, platform);

  async function publishVideo(account: Account): Promise<string> {
    return publishPost(t, tenant.auth, {
      content: `Long review ${Date.now()} #sandbox-review`,
      accountIds: [account.id],
      mediaUrls: [`${t.url}/sandbox/_control/media/video.mp4`],
    });
  }

  /** Waits until GET /v1/posts/{id} shows the target waiting on the network (post still processing). */
  async function waitUntilWaiting(postId: string): Promise<void> {
    await eventually(
      async () => {
        const res = await t.http().get(`/v1/posts/${postId}`).set(tenant.auth).expect(200);
        const post = res.body.post as { state: string; targets: { status: string }[] };
        return post.targets[0]?.status === 'waiting_on_network' ? post : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    ).then((post) => expect(post.state).toBe('processing'));
  }

  async function expectPublishedOnce(postId: string, account: Account): Promise<void> {
    expect(await waitForFinal(t, postId, 90_000)).toBe('published');
    const [target] = await targetsOf(t, postId);
    expect(target).toMatchObject({ status: 'success', errorCategory: null });
    expect(await sandboxItems(t, account)).toEqual([target.externalId]);
    const events = await postEvents(t, postId);
    expect(events.filter((e) => e.type !== 'post.created').map((e) => e.type)).toEqual(['post.published']);
  }

  beforeAll(
    async () => ({ t, tenant } = await createApiApp({ env: { SANDBOX_REVIEW_MS: String(REVIEW_MS), ...WORKER_ENV } })),
  );
  afterAll(async () => {
    await workers.killAll();
    await t.close();
  });

  it('should wait on the network past the in-attempt limit and end published with one item', async () => {
    const account = await connect('tiktok');
    await worker();
    const started = Date.now();
    const postId = await publishVideo(account);
    await waitUntilWaiting(postId);
    // Nothing is on the network yet: it is still in review.
    expect(await sandboxItems(t, account)).toEqual([]);
    await expectPublishedOnce(postId, account);
    expect(Date.now() - started).toBeGreaterThanOrEqual(REVIEW_MS);
  });

  it('should follow an Instagram video container that outlasts the wait up to its publication', async () => {
    const account = await connect('instagram');
    if (workers.started.every((w) => w.child.exitCode !== null || w.child.signalCode !== null)) await worker();
    const postId = await publishVideo(account);
    await waitUntilWaiting(postId);
    expect(await sandboxItems(t, account)).toEqual([]);
    await expectPublishedOnce(postId, account);
  });

  it('should end published with one item when the worker restarts while the target waits', async () => {
    const account = await connect('tiktok');
    await workers.killAll();
    const first = await worker();
    const postId = await publishVideo(account);
    await waitUntilWaiting(postId);
    await first.kill();
    expect(await postState(t, postId)).toBe('processing');
    expect((await targetsOf(t, postId))[0]?.status).toBe('waiting_on_network');

    await worker();
    await expectPublishedOnce(postId, account);
  });
});
