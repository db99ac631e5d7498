import { randomUUID } from 'node:crypto';
import type { AccountCredentials, PlatformAdapter, PublishContent } from '@/modules/networks/kit/adapter';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { PlatformName } from '@/modules/networks/platform-name';
import { PublishPostProcessor } from '@/modules/posts/publishing/publish-post.processor';
import { TargetPublisher } from '@/modules/posts/publishing/target-publisher';
import { connectNewAccount } from '@test/support/connect-flow';
import { FakeNetwork } from '@test/support/fake-network';
import { connectSandbox } from '@test/support/sandbox-connect';
import { createPost } from '@test/support/post-fixtures';
import { insertAccount, insertPost, postState, sandboxItems, targetsOf, waitForFinal } from '@test/support/publishing';
import {
  clearOfUtcMidnight,
  clearOfUtcTime,
  createTenant,
  createTestApp,
  Tenant,
  TestApp,
} from '@test/support/test-app';
import { createKey } from '@test/support/e2e-helpers';

interface Account {
  id: string;
  platform: PlatformName;
  platformAccountId: string;
}

interface Limit {
  name: string;
  window: string;
  limit: number;
  used: number;
  resetsAt: string | null;
  scope: string;
  source: string;
}

/**
 * Network caps (issue 11 item 6) through the sandbox networks, with small caps configured
 * (NETWORK_CAPS) so they can be reached: GET /v1/accounts/{id}/limits.
 */
describe('network caps', () => {
  // Daily counts and resetsAt are of the UTC day: no test straddles midnight.
  beforeEach(() => clearOfUtcMidnight());
  let t: TestApp;
  let tenant: Tenant;
  let seq = 0;

  const connect = (platform: PlatformName): Promise<Account> => connectNewAccount(t, tenant, platform);

  async function publish(account: Account, media = false): Promise<string> {
    const res = await createPost(t, tenant.auth, {
      content: `Caps test ${++seq} ${Date.now()}`,
      accountIds: [account.id],
      publishNow: true,
      ...(media ? { mediaUrls: [`${t.url}/sandbox/_control/media/image.jpg`] } : {}),
    });
    expect(res.status).toBe(201);
    await waitForFinal(t, res.body.id as string);
    return res.body.id as string;
  }

  const limitsOf = async (id: string, auth = tenant.auth) => t.http().get(`/v1/accounts/${id}/limits`).set(auth);

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        NETWORK_CAPS:
          'instagram.posts_per_24h=2,linkedin.posts_per_day=1,threads.posts_per_24h=1,tiktok.posts_per_day=1,youtube.uploads_per_day=1',
      },
    });
    t.app.get(TargetPublisher).setRetryPolicy({ baseDelayMs: 50, maxDelayMs: 200 });
    tenant = await createTenant(t);
  });
  afterAll(async () => t.close());

  describe('GET /v1/accounts/{id}/limits', () => {
    it('should count a LinkedIn account’s posts of the UTC day from our publish records', async () => {
      const li = await connect('linkedin');
      const before = await limitsOf(li.id);
      expect(before.status).toBe(200);
      const midnight = new Date();
      midnight.setUTCHours(24, 0, 0, 0);
      expect(before.body).toEqual({
        accountId: li.id,
        platform: 'linkedin',
        limits: [
          {
            name: 'posts_per_day',
            window: 'day_utc',
            limit: 1,
            used: 0,
            resetsAt: midnight.toISOString(),
            scope: 'account',
            source: 'records',
          },
        ],
      });
      await publish(li);
      expect(((await limitsOf(li.id)).body.limits as Limit[])[0]).toMatchObject({ used: 1, limit: 1 });
    });

    it('should read an Instagram account’s figure from content_publishing_limit', async () => {
      const ig = await connect('instagram');
      const [before] = (await limitsOf(ig.id)).body.limits as Limit[];
      expect(before).toEqual({
        name: 'posts_per_24h',
        window: 'rolling_24h',
        limit: 2,
        used: 0,
        resetsAt: null,
        scope: 'account',
        source: 'network',
      });
      const started = Date.now();
      await publish(ig, true);
      const [after] = (await limitsOf(ig.id)).body.limits as Limit[];
      expect(after).toMatchObject({ used: 1, limit: 2, source: 'network' });
      // Rolling: room frees up 24 h after the post counted.
      const resets = Date.parse(String(after?.resetsAt));
      expect(resets).toBeGreaterThanOrEqual(started + 86_400_000 - 1000);
      expect(resets).toBeLessThanOrEqual(Date.now() + 86_400_000);
    });

    it('should answer the Threads figure from threads_publishing_limit, and no cap for Facebook', async () => {
      const th = await connect('threads');
      expect(((await limitsOf(th.id)).body.limits as Limit[])[0]).toMatchObject({
        name: 'posts_per_24h',
        limit: 1,
        used: 0,
        source: 'network',
      });
      const fb = await connect('facebook');
      expect((await limitsOf(fb.id)).body).toEqual({ accountId: fb.id, platform: 'facebook', limits: [] });
    });

    it('should share YouTube’s per-project quota between accounts, from our records', async () => {
      const yt = await insertAccount(t, tenant, 'youtube');
      expect(((await limitsOf(yt.id)).body.limits as Limit[])[0]).toMatchObject({
        name: 'uploads_per_day',
        window: 'day_pacific',
        limit: 1,
        scope: 'app',
        source: 'records',
      });
    });

    it('should answer 404 for an account the key cannot see, as GET /v1/accounts/{id} does', async () => {
      const a = await insertAccount(t, tenant, 'linkedin');
      const b = await insertAccount(t, tenant, 'linkedin');
      const restricted = await createKey(t, tenant, { accountIds: [a.id] });
      expect((await limitsOf(a.id, restricted.auth)).status).toBe(200);
      for (const [id, auth] of [
        [b.id, restricted.auth],
        [randomUUID(), tenant.auth],
        ['not-a-uuid', tenant.auth],
      ] as const) {
        const res = await limitsOf(id, auth);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
      const other = await createTenant(t);
      const res = await limitsOf(a.id, other.auth);
      expect(res.status).toBe(404);
    });
  });

  describe('a post over a cap', () => {
    it('should be reported by POST /v1/posts/validate, naming the account and the limit', async () => {
      const li = await connect('linkedin');
      const fresh = await connect('linkedin');
      await publish(li);
      const res = await t
        .http()
        .post('/v1/posts/validate')
        .set(tenant.auth)
        .send({ content: 'One more today', accountIds: [li.id, fresh.id] });
      expect(res.status).toBe(200);
      expect(res.body.valid).toBe(false);
      expect(res.body.errors).toEqual([
        {
          accountId: li.id,
          platform: 'linkedin',
          field: 'accountIds',
          code: 'daily_post_limit',
          message: expect.stringContaining(li.id),
        },
      ]);
      expect(res.body.errors[0].message).toMatch(/allows 1 posts per day \(UTC\).*posts_per_day.*1 already published/);
      // The same post tomorrow fits.
      const tomorrow = new Date();
      tomorrow.setUTCHours(24 + 12, 0, 0, 0);
      const later = await t
        .http()
        .post('/v1/posts/validate')
        .set(tenant.auth)
        .send({ content: 'Tomorrow', accountIds: [li.id], scheduledAt: tomorrow.toISOString() });
      expect(later.body).toEqual({ valid: true, errors: [] });
    });

    it('should fail at publish time with network_rate_limited and when it resets, without calling the network', async () => {
      const li = await connect('linkedin');
      await publish(li);
      const before = await sandboxItems(t, li);
      expect(before).toHaveLength(1);
      const postId = await publish(li);
      expect(await postState(t, postId)).toBe('failed');
      const res = await t.http().get(`/v1/posts/${postId}`).set(tenant.auth);
      const [target] = res.body.post.targets as { status: string; errorCategory: string; error: string }[];
      const midnight = new Date();
      midnight.setUTCHours(24, 0, 0, 0);
      expect(target).toMatchObject({ status: 'failed', errorCategory: 'network_rate_limited' });
      expect(target?.error).toContain(`It resets at ${midnight.toISOString()}`);
      expect(target?.error).toContain(li.id);
      expect(await sandboxItems(t, li)).toEqual(before);
    });

    it('should let exactly one of two publishes racing for the last unit of a cap reach the network', async () => {
      const li = await insertAccount(t, tenant, 'linkedin');
      const fake = new FakeNetwork('linkedin');
      // The first call is still out when the other publish checks the cap.
      fake.delayMs = 500;
      const registry = t.app.get(PlatformRegistry);
      const original = registry.get.bind(registry);
      const spy = jest.spyOn(registry, 'get').mockImplementation((p) => (p === 'linkedin' ? fake : original(p)));
      try {
        const a = await insertPost(t, tenant, [li], { text: `Race A ${Date.now()}` });
        const b = await insertPost(t, tenant, [li], { text: `Race B ${Date.now()}` });
        const processor = t.app.get(PublishPostProcessor);
        const outcomes = await Promise.all([processor.run(a.postId), processor.run(b.postId)]);
        expect([...outcomes].sort()).toEqual(['failed', 'published']);
        expect(fake.publishCalls).toBe(1);
        expect(fake.items).toHaveLength(1);
        const [lost] = await targetsOf(t, outcomes[0] === 'failed' ? a.postId : b.postId);
        const midnight = new Date();
        midnight.setUTCHours(24, 0, 0, 0);
        expect(lost).toMatchObject({ status: 'failed', errorCategory: 'network_rate_limited', attempts: 0 });
        expect(lost?.error).toContain(`It resets at ${midnight.toISOString()}`);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('the simulators', () => {
    const adapter = (p: PlatformName): PlatformAdapter => t.app.get(PlatformRegistry).get(p);
    async function sandboxAccount(p: PlatformName): Promise<AccountCredentials> {
      const { tokens, accounts } = await connectSandbox(adapter(p));
      const [a] = accounts;
      if (!a) throw new Error(`the ${p} sandbox granted no account`);
      return {
        platformAccountId: a.platformAccountId,
        accessToken: a.tokens?.accessToken ?? tokens.accessToken,
        metadata: a.metadata ?? {},
      };
    }
    const send = (p: PlatformName, account: AccountCredentials, c: Partial<PublishContent>) =>
      adapter(p).publish({
        account,
        content: { contentType: 'text', text: '', link: null, imageUrls: [], videoUrl: null, options: {}, ...c },
        publishState: {},
        saveState: async () => undefined,
      });
    const video = (text: string): Partial<PublishContent> => ({
      contentType: 'video',
      text,
      videoUrl: `${t.url}/sandbox/_control/media/video.mp4`,
      options: { title: text },
    });

    it("should answer LinkedIn's daily throttle (429) past the member's cap", async () => {
      const li = await sandboxAccount('linkedin');
      await send('linkedin', li, { text: `First ${Date.now()}` });
      await expect(send('linkedin', li, { text: `Second ${Date.now()}` })).rejects.toMatchObject({
        category: 'network_rate_limited',
        details: { status: 429 },
      });
    });

    it("should answer TikTok's spam_risk_too_many_posts past the creator's cap, on init and creator_info", async () => {
      const tt = await sandboxAccount('tiktok');
      await send('tiktok', tt, video(`First ${Date.now()}`));
      await expect(adapter('tiktok').publishingUsage!(tt)).resolves.toMatchObject({ exhausted: true });
      await expect(send('tiktok', tt, video(`Second ${Date.now()}`))).rejects.toMatchObject({
        category: 'network_rate_limited',
        details: { networkCode: 'spam_risk_too_many_posts' },
      });
    });

    it("should answer YouTube's quotaExceeded past the project's uploads of the day", async () => {
      const yt = await sandboxAccount('youtube');
      const other = await sandboxAccount('youtube');
      // The project's quota is YouTube's Pacific day: it resets at 07:00 or 08:00 UTC, not at UTC midnight.
      for (const at of ['07:00', '08:00']) await clearOfUtcTime(at);
      await send('youtube', yt, video(`First ${Date.now()}`));
      // One bucket for the whole project: another channel is refused too.
      await expect(send('youtube', other, video(`Second ${Date.now()}`))).rejects.toMatchObject({
        category: 'network_rate_limited',
        details: { networkCode: 'quotaExceeded' },
      });
    });
  });
});
