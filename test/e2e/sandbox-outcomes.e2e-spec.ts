import type { PlatformName } from '@/modules/networks/platform-name';
import { TargetPublisher } from '@/modules/posts/publishing/target-publisher';
import { connectNewAccount } from '@test/support/connect-flow';
import { postEvents, sandboxItems, waitForFinal } from '@test/support/publishing';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

interface Account {
  id: string;
  platform: PlatformName;
  platformAccountId: string;
}

interface TargetView {
  accountId: string;
  status: string;
  errorCategory: string | null;
  error: string | null;
}

const PLATFORMS: PlatformName[] = ['facebook', 'instagram', 'threads', 'linkedin', 'tiktok', 'youtube'];

/**
 * The sandbox rehearses every outcome a client must handle: one magic word per errorCategory on
 * every network, #sandbox-flaky (fails the first run, a retried post succeeds) and
 * #sandbox-transient (absorbed by the worker's retry inside the run), seen through the API.
 */
describe('sandbox outcomes (magic words through the API)', () => {
  let t: TestApp;
  let tenant: Tenant;
  let seq = 0;

  const connect = (platform: PlatformName): Promise<Account> => connectNewAccount(t, tenant, platform);

  /** What each network needs to publish: an image on Instagram, a video on TikTok and YouTube. */
  function mediaFor(accounts: Account[]): string[] {
    const platforms = new Set(accounts.map((a) => a.platform));
    if (platforms.has('tiktok') || platforms.has('youtube')) return [`${t.url}/sandbox/_control/media/video.mp4`];
    if (platforms.has('instagram')) return [`${t.url}/sandbox/_control/media/image.jpg`];
    return [];
  }

  async function publishNow(words: string, accounts: Account[]): Promise<string> {
    const res = await t
      .http()
      .post('/v1/posts')
      .set(tenant.auth)
      .send({
        content: `Outcome ${++seq} ${Date.now()} ${words}`,
        accountIds: accounts.map((a) => a.id),
        mediaUrls: mediaFor(accounts),
        platforms: { youtube: { title: `Outcome ${seq}` } },
        publishNow: true,
      });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  /** The post as a client sees it (GET /v1/posts/{id}). */
  async function seen(postId: string): Promise<{ state: string; targets: TargetView[] }> {
    const res = await t.http().get(`/v1/posts/${postId}`).set(tenant.auth).expect(200);
    return res.body.post as { state: string; targets: TargetView[] };
  }

  async function failedTarget(words: string, account: Account): Promise<TargetView> {
    const postId = await publishNow(words, [account]);
    expect(await waitForFinal(t, postId)).toBe('failed');
    const post = await seen(postId);
    expect(post.state).toBe('failed');
    return post.targets[0];
  }

  async function accountEvents(accountId: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
    return t.ds.query(
      `SELECT type, data FROM events WHERE type = 'account.disconnected' AND data->'account'->>'id' = $1 ORDER BY created_at`,
      [accountId],
    );
  }

  beforeAll(async () => {
    t = await createTestApp();
    t.app.get(TargetPublisher).setRetryPolicy({ baseDelayMs: 50, maxDelayMs: 200 });
    tenant = await createTenant(t);
  });
  afterAll(async () => t.close());

  it.each(PLATFORMS)('should fail a %s target with the errorCategory each magic word names', async (platform) => {
    const account = await connect(platform);
    const expectations: [string, string][] = [
      ['invalid-content', 'invalid_content'],
      ['fail', 'invalid_content'],
      ['media-rejected', 'media_rejected'],
      ['rate-limited', 'network_rate_limited'],
      ['unknown-outcome', 'unknown_outcome'],
    ];
    for (const [word, category] of expectations) {
      const target = await failedTarget(`#sandbox-${word}:${platform}`, account);
      expect({ word, ...target }).toMatchObject({ word, status: 'failed', errorCategory: category });
    }
    expect((await accountEvents(account.id)).map((e) => e.type)).toEqual([]);

    // auth_expired: the account needs reconnecting, and account.disconnected says so once.
    const target = await failedTarget(`#sandbox-auth-expired:${platform}`, account);
    expect(target).toMatchObject({ status: 'failed', errorCategory: 'auth_expired' });
    const res = await t.http().get(`/v1/accounts/${account.id}`).set(tenant.auth).expect(200);
    expect(res.body.account.status).toBe('expired');
    const events = await accountEvents(account.id);
    expect(events.map((e) => e.type)).toEqual(['account.disconnected']);
    expect(events[0].data).toMatchObject({ reason: 'token_revoked', account: { id: account.id, status: 'expired' } });
  });

  it('should say the outcome is unknown without sending the item twice', async () => {
    const account = await connect('facebook');
    const target = await failedTarget('#sandbox-unknown-outcome', account);
    expect(target.errorCategory).toBe('unknown_outcome');
    expect(target.error).toContain('outcome of the publish request is unknown');
    expect(await sandboxItems(t, account)).toEqual([]);
  });

  it('should fail a #sandbox-flaky target on the first run and publish it when the post is retried', async () => {
    const fb = await connect('facebook');
    const li = await connect('linkedin');
    const postId = await publishNow('#sandbox-flaky:linkedin', [fb, li]);
    expect(await waitForFinal(t, postId)).toBe('partially_published');
    const first = await seen(postId);
    expect(first.targets.find((x) => x.accountId === li.id)).toMatchObject({
      status: 'failed',
      errorCategory: 'network_error',
    });
    expect(first.targets.find((x) => x.accountId === fb.id)).toMatchObject({ status: 'success', errorCategory: null });
    expect(await sandboxItems(t, li)).toEqual([]);

    await t.http().post(`/v1/posts/${postId}/retry`).set(tenant.auth).send({}).expect(200);
    expect(await waitForFinal(t, postId)).toBe('published');
    const after = await seen(postId);
    expect(after.targets.map((x) => [x.status, x.errorCategory])).toEqual([
      ['success', null],
      ['success', null],
    ]);
    expect(await sandboxItems(t, li)).toHaveLength(1);
    const types = (await postEvents(t, postId)).map((e) => e.type).filter((x) => x !== 'post.created');
    expect(types).toEqual(['post.partially_published', 'post.published']);
  });

  it.each(['tiktok', 'instagram'] as PlatformName[])(
    'should end failed on a flaky %s network and published after POST /v1/posts/{id}/retry',
    async (platform) => {
      const account = await connect(platform);
      const postId = await publishNow(`#sandbox-flaky:${platform}`, [account]);
      expect(await waitForFinal(t, postId)).toBe('failed');
      expect((await seen(postId)).targets[0]).toMatchObject({ status: 'failed', errorCategory: 'network_error' });
      await t.http().post(`/v1/posts/${postId}/retry`).set(tenant.auth).send({}).expect(200);
      expect(await waitForFinal(t, postId)).toBe('published');
      expect(await sandboxItems(t, account)).toHaveLength(1);
    },
  );

  it('should ride out #sandbox-transient inside the run: published on the first run', async () => {
    const fb = await connect('facebook');
    const postId = await publishNow('#sandbox-transient:facebook', [fb]);
    expect(await waitForFinal(t, postId)).toBe('published');
    expect((await seen(postId)).targets[0]).toMatchObject({ status: 'success' });
    expect(await sandboxItems(t, fb)).toHaveLength(1);
  });
});
