import type { PlatformName } from '@/modules/networks/platform-name';
import { TargetPublisher } from '@/modules/posts/publishing/target-publisher';
import { connectNewAccount, SandboxAccount } from '@test/support/connect-flow';
import { createPost, inFuture, setPolicy } from '@test/support/post-fixtures';
import { postEvents, sandboxItems, targetsOf, waitForFinal } from '@test/support/publishing';
import { createTenant, createTestApp, Tenant, TestApp } from '@test/support/test-app';

type Account = SandboxAccount;

/**
 * The profile's policy is applied again when a post goes out: a post scheduled while the policy
 * allowed it must not reach a network the policy now excludes, nor carry a term it now blocks.
 */
describe('guardrails at publish time', () => {
  let t: TestApp;
  let tenant: Tenant;
  let fb: Account;
  let li: Account;
  let seq = 0;

  const connect = (platform: PlatformName): Promise<Account> => connectNewAccount(t, tenant, platform);

  async function schedule(content: string, accounts: Account[], inMs = 1500): Promise<string> {
    const res = await createPost(t, tenant.auth, {
      content,
      accountIds: accounts.map((a) => a.id),
      scheduledAt: inFuture(inMs),
    }).expect(201);
    expect(res.body.state).toBe('scheduled');
    return res.body.id as string;
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { SCHEDULER_SWEEP_MS: '500' } });
    t.app.get(TargetPublisher).setRetryPolicy({ baseDelayMs: 50, maxDelayMs: 200 });
    tenant = await createTenant(t);
    fb = await connect('facebook');
    li = await connect('linkedin');
  });
  afterEach(async () => setPolicy(t, tenant, { allowedPlatforms: null, blockedTerms: [] }));
  afterAll(async () => t.close());

  it('should fail the target of a platform excluded after scheduling, without sending it', async () => {
    const postId = await schedule(`Guardrails ${++seq} ${Date.now()}`, [fb, li]);
    await setPolicy(t, tenant, { allowedPlatforms: ['linkedin'] });

    expect(await waitForFinal(t, postId)).toBe('partially_published');
    const targets = await targetsOf(t, postId);
    const fbTarget = targets.find((x) => x.accountId === fb.id)!;
    const liTarget = targets.find((x) => x.accountId === li.id)!;
    expect(fbTarget).toMatchObject({ status: 'failed', errorCategory: 'policy_violation', externalId: null });
    expect(fbTarget.error).toMatch(/policy/i);
    expect(fbTarget.error).toContain('facebook');
    expect(liTarget.status).toBe('success');
    // Never reached the network.
    expect(await sandboxItems(t, fb)).toEqual([]);
    expect(await sandboxItems(t, li)).toEqual([liTarget.externalId]);

    const res = await t.http().get(`/v1/posts/${postId}`).set(tenant.auth).expect(200);
    const shown = (res.body.post?.targets ?? res.body.targets) as { accountId: string; errorCategory: string }[];
    expect(shown.find((x) => x.accountId === fb.id)?.errorCategory).toBe('policy_violation');
    const events = await postEvents(t, postId);
    expect(events.filter((e) => e.type.startsWith('post.') && e.type !== 'post.created').map((e) => e.type)).toEqual([
      'post.scheduled',
      'post.partially_published',
    ]);
  });

  it('should fail every target of a post holding a term blocked after scheduling', async () => {
    const before = { fb: (await sandboxItems(t, fb)).length, li: (await sandboxItems(t, li)).length };
    const postId = await schedule(`Guardrails ${++seq} ${Date.now()} with forbiddenword inside`, [fb, li]);
    await setPolicy(t, tenant, { blockedTerms: ['ForbiddenWord'] });

    expect(await waitForFinal(t, postId)).toBe('failed');
    const targets = await targetsOf(t, postId);
    for (const target of targets) {
      expect(target).toMatchObject({ status: 'failed', errorCategory: 'policy_violation' });
      expect(target.error).toContain("'ForbiddenWord'");
    }
    expect((await sandboxItems(t, fb)).length).toBe(before.fb);
    expect((await sandboxItems(t, li)).length).toBe(before.li);
    const events = await postEvents(t, postId);
    expect(events.map((e) => e.type)).toContain('post.failed');
  });
});
