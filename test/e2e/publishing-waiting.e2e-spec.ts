import type { PlatformAdapter, ProcessingCheck, PublishRequest, PublishResult } from '@/modules/networks/kit/adapter';
import { PlatformError, StillProcessingError } from '@/modules/networks/kit/adapter';
import type { PlatformName } from '@/modules/networks/platform-name';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import { QueueService } from '@/common/queue/queue.service';
import { PublishPostProcessor } from '@/modules/posts/publishing/publish-post.processor';
import { ResumeStuckPosts } from '@/modules/posts/publishing/resume-stuck-posts';
import { TargetPublisher } from '@/modules/posts/publishing/target-publisher';
import { FakeNetwork } from '@test/support/fake-network';
import { insertAccount, InsertedAccount, insertPost, postEvents, postState, targetsOf } from '@test/support/publishing';
import { createApiApp, Tenant, TestApp } from '@test/support/test-app';

/** A network double that keeps items in processing: publish takes the item, checkProcessing answers from a script. */
class ProcessingNetwork extends FakeNetwork {
  readonly answers: (ProcessingCheck | Error)[] = [];
  checkCalls = 0;
  published: PublishResult | null = null;

  constructor(platform: PlatformName) {
    super(platform);
    this.script.push(async (_req, create) => {
      this.published = create();
      throw new StillProcessingError('Still in review');
    });
  }

  async checkProcessing(req: Omit<PublishRequest, 'saveState'>): Promise<ProcessingCheck> {
    this.checkCalls += 1;
    expect(req.publishState.nonce).toEqual(expect.any(String));
    const next = this.answers.shift() ?? { status: 'processing' };
    if (next instanceof Error) throw next;
    return next;
  }
}

/**
 * Targets waiting on the network's processing, against a scripted double: follow-up checks
 * settle them (published, rejected, 24 hours), the post stays processing meanwhile, nothing is
 * sent twice, and a post waiting on a check that is ahead is not "stuck".
 */
describe('publishing worker: targets waiting on the network', () => {
  let t: TestApp;
  let tenant: Tenant;
  let processor: PublishPostProcessor;
  let fake: ProcessingNetwork;
  let tiktok: InsertedAccount;

  beforeAll(async () => {
    // No worker in this process: the test runs the jobs itself.
    ({ t, tenant } = await createApiApp({ env: { NETWORK_CHECK_BASE_MS: '60000' } }));
    processor = t.app.get(PublishPostProcessor);
    t.app.get(TargetPublisher).setRetryPolicy({ baseDelayMs: 20, maxDelayMs: 100 });
    const registry = t.app.get(PlatformRegistry);
    const original = registry.get.bind(registry);
    jest
      .spyOn(registry, 'get')
      .mockImplementation((p: PlatformName): PlatformAdapter => (p === 'tiktok' ? fake : original(p)));
    tiktok = await insertAccount(t, tenant, 'tiktok');
  });
  afterAll(async () => t.close());
  beforeEach(() => {
    fake = new ProcessingNetwork('tiktok');
  });

  const makeDue = (postId: string) =>
    t.ds.query(`UPDATE post_targets SET next_check_at = now() - interval '1 second' WHERE post_id = $1`, [postId]);

  it('should leave the target waiting, schedule a check, and publish once the network is done', async () => {
    const { postId } = await insertPost(t, tenant, [tiktok]);
    await expect(processor.run(postId)).resolves.toBe('waiting');
    let [target] = await targetsOf(t, postId);
    expect(target).toMatchObject({ status: 'waiting_on_network', checks: 0, error: null, errorCategory: null });
    expect(target.waitingSince).toBeInstanceOf(Date);
    const due = target.nextCheckAt!.getTime() - Date.now();
    expect(due).toBeGreaterThan(50_000);
    expect(due).toBeLessThanOrEqual(60_000);
    expect(await postState(t, postId)).toBe('processing');
    const job = await t.app
      .get(QueueService)
      .queue('publish')
      .getJob(`check:${postId}:${target.nextCheckAt!.getTime()}`);
    expect(job?.name).toBe('check-publish');

    // Not due yet: a run changes nothing and asks nothing.
    await expect(processor.run(postId)).resolves.toBe('waiting');
    expect(fake.checkCalls).toBe(0);

    await makeDue(postId);
    fake.answers.push({ status: 'processing' });
    await expect(processor.run(postId)).resolves.toBe('waiting');
    [target] = await targetsOf(t, postId);
    expect(target).toMatchObject({ status: 'waiting_on_network', checks: 1 });
    expect(target.nextCheckAt!.getTime() - Date.now()).toBeGreaterThan(110_000);

    await makeDue(postId);
    fake.answers.push({ status: 'published', result: fake.published! });
    await expect(processor.run(postId)).resolves.toBe('published');
    [target] = await targetsOf(t, postId);
    expect(target).toMatchObject({ status: 'success', externalId: fake.published!.externalId, nextCheckAt: null });
    expect(fake.publishCalls).toBe(1);
    expect(fake.items).toHaveLength(1);
    const events = await postEvents(t, postId);
    expect(events.map((e) => e.type)).toEqual(['post.published']);
  });

  it('should fail the target with the network category when processing ends in a rejection', async () => {
    const { postId } = await insertPost(t, tenant, [tiktok]);
    await expect(processor.run(postId)).resolves.toBe('waiting');
    await makeDue(postId);
    fake.answers.push({
      status: 'failed',
      error: new PlatformError('TikTok moderation refused the video.', 'media_rejected', false),
    });
    await expect(processor.run(postId)).resolves.toBe('failed');
    const [target] = await targetsOf(t, postId);
    expect(target).toMatchObject({ status: 'failed', errorCategory: 'media_rejected', publishState: {} });
    expect(fake.publishCalls).toBe(1);
    expect((await postEvents(t, postId)).map((e) => e.type)).toEqual(['post.failed']);
  });

  it('should keep checking after a transient check failure, and give up as unknown_outcome after 24 hours', async () => {
    const { postId } = await insertPost(t, tenant, [tiktok]);
    await expect(processor.run(postId)).resolves.toBe('waiting');
    await makeDue(postId);
    for (let i = 0; i < 3; i++) fake.answers.push(new PlatformError('TikTok is down', 'network_error', true));
    await expect(processor.run(postId)).resolves.toBe('waiting');
    expect((await targetsOf(t, postId))[0]).toMatchObject({ status: 'waiting_on_network', checks: 1 });

    await t.ds.query(
      `UPDATE post_targets SET waiting_since = now() - interval '25 hours', next_check_at = now() WHERE post_id = $1`,
      [postId],
    );
    fake.answers.push({ status: 'processing' });
    await expect(processor.run(postId)).resolves.toBe('failed');
    const [target] = await targetsOf(t, postId);
    expect(target).toMatchObject({ status: 'failed', errorCategory: 'unknown_outcome' });
    expect(target.error).toContain('still processing');
    expect(fake.publishCalls).toBe(1);
  });

  it('should park, not re-send, a target whose worker died while the network was processing it', async () => {
    const { postId, targetIds } = await insertPost(t, tenant, [tiktok], { state: 'processing' });
    await t.ds.query(
      `UPDATE post_targets SET status = 'publishing', attempts = 1, publish_state = '{"nonce":"n-crashed"}' WHERE id = $1`,
      [targetIds[0]],
    );
    fake.answers.push({ status: 'processing' });
    await expect(processor.run(postId)).resolves.toBe('waiting');
    expect((await targetsOf(t, postId))[0]).toMatchObject({ status: 'waiting_on_network', attempts: 1 });
    expect(fake.publishCalls).toBe(0);
    expect(fake.findCalls).toBe(0);
  });

  it('should not count a post waiting on a check that is ahead as stuck, but resume it once the check is overdue', async () => {
    const sweep = t.app.get(ResumeStuckPosts);
    const { postId } = await insertPost(t, tenant, [tiktok]);
    await expect(processor.run(postId)).resolves.toBe('waiting');
    const age = `interval '1 hour'`;
    await t.ds.query(`UPDATE posts SET updated_at = now() - ${age} WHERE id = $1`, [postId]);
    await t.ds.query(
      `UPDATE post_targets SET updated_at = now() - ${age}, next_check_at = now() + interval '10 minutes' WHERE post_id = $1`,
      [postId],
    );
    expect(await sweep.sweep()).not.toContain(postId);
    await t.ds.query(`UPDATE post_targets SET next_check_at = now() - ${age} WHERE post_id = $1`, [postId]);
    expect(await sweep.sweep()).toContain(postId);
  });
});
