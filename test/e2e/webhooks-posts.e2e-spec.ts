import Stripe from 'stripe';
import { verifySignature } from '@/modules/webhooks/webhook-signature';
import { connectThroughSandbox } from '@test/support/connect-flow';
import { accountsOf } from '@test/support/publishing';
import { createTenant, eventually, Tenant, TestApp } from '@test/support/test-app';
import {
  WebhookReceiver,
  startAppAndReceiver,
  closeAppAndReceiver,
  subscribeWebhook,
} from '@test/support/webhook-receiver';

const stripeSignature = new Stripe('sk_test_unused').webhooks.signature!;

/** Events written by the real features (connect, posts, publishing) reach subscriptions. */
describe('webhooks fed by real writes', () => {
  let t: TestApp;
  let tenant: Tenant;
  let receiver: WebhookReceiver;
  let secret: string;
  let accountId: string;

  beforeAll(async () => {
    ({ t, receiver } = await startAppAndReceiver({ env: { WEBHOOK_RETRY_DELAYS_MS: '200,200,200,200,200,200' } }));
    tenant = await createTenant(t);
    ({ secret } = await subscribeWebhook(t, tenant, receiver.url('/real'), ['*']));
    await connectThroughSandbox(t, tenant, 'facebook');
    const [account] = await accountsOf(t, tenant.profileId);
    accountId = account.id;
  });
  afterAll(() => closeAppAndReceiver(t, receiver));

  const hitsOf = (type: string, postId?: string) =>
    receiver.at('/real').filter((h) => h.body.type === type && (!postId || h.body.data.postId === postId));

  it('should deliver account.connected and connection.completed (with data.accounts) for a sandbox connect', async () => {
    await eventually(async () => hitsOf('connection.completed').length > 0 && hitsOf('account.connected').length > 0);
    const [completed] = hitsOf('connection.completed');
    expect(completed.body.data).toMatchObject({
      profileId: tenant.profileId,
      accounts: [expect.objectContaining({ id: accountId })],
    });
    expect(hitsOf('account.connected')[0].body.data.profileId).toBe(tenant.profileId);
  });

  it('should deliver post.created for a post created through POST /v1/posts', async () => {
    const res = await t
      .http()
      .post('/v1/posts')
      .set(tenant.auth)
      .send({ content: 'Draft for webhooks', accountIds: [accountId] })
      .expect(201);
    const postId = res.body.id as string;
    await receiver.waitFor('/real', 1);
    const [hit] = await eventually(
      async () => hitsOf('post.created', postId).length > 0 && hitsOf('post.created', postId),
    );
    expect(hit).toBeDefined();
    expect(hit.body.data).toMatchObject({
      profileId: tenant.profileId,
      postId,
      status: 'draft',
      state: 'draft',
    });
    expect(stripeSignature.verifyHeader(hit.raw, hit.headers['service-signature'] as string, secret, 300)).toBe(true);
    expect(verifySignature(hit.raw, hit.headers['service-signature'] as string, secret)).toMatchObject({ ok: true });
  });

  it('should deliver post.published with target results when the worker publishes a post', async () => {
    const res = await t
      .http()
      .post('/v1/posts')
      .set(tenant.auth)
      .send({
        content: `Published for webhooks ${Date.now()}`,
        accountIds: [accountId],
        publishNow: true,
      })
      .expect(201);
    const postId = res.body.id as string;
    const [hit] = await eventually(
      async () => hitsOf('post.published', postId).length > 0 && hitsOf('post.published', postId),
    );
    expect(hit).toBeDefined();
    expect(hit.body.data).toMatchObject({
      profileId: tenant.profileId,
      postId,
      status: 'published',
      completedTargets: 1,
      failedTargets: 0,
    });
    expect((hit.body.data.results as unknown[])[0]).toMatchObject({
      platform: 'facebook',
      status: 'success',
      result: { id: expect.any(String) },
    });
    // Deliveries may arrive out of order (spec: Webhooks): post.created may come after post.published.
    await eventually(async () => hitsOf('post.created', postId).length > 0);
    expect(hitsOf('post.created', postId)).toHaveLength(1);
    expect(stripeSignature.verifyHeader(hit.raw, hit.headers['service-signature'] as string, secret, 300)).toBe(true);
  });
});
