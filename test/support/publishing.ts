import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { SecretBox } from '@/common/crypto/secret-box';
import { QueueService } from '@/common/queue/queue.service';
import { REDIS, redisKey } from '@/common/redis/redis.module';
import type { PlatformName } from '@/modules/networks/platform-name';
import { PostTargetEntity } from '@/modules/posts/entities/post-target.entity';
import type { PostContent, PostState } from '@/modules/posts/entities/post.entity';
import { PostEntity } from '@/modules/posts/entities/post.entity';
import { SocialAccountEntity } from '@/modules/accounts/entities/social-account.entity';
import { eventually, Tenant, TestApp } from './test-app';

/** Final post states. */
export const FINAL_STATES: PostState[] = ['published', 'partially_published', 'failed', 'cancelled'];

export interface InsertedAccount {
  id: string;
  platform: PlatformName;
  name: string;
  platformAccountId: string;
  /** Null for a row without tokens (`accessToken: null`). */
  accessToken: string | null;
}

/**
 * A connected account row with sealed tokens, inserted directly (the connect flow is tested
 * elsewhere), in the tenant's profile unless `profileId` names another. For tests whose network is
 * faked (or whose tokens came from the sandbox's OAuth): a non-expiring token, so publishing never
 * refreshes it. `accessToken: null` stores no token, for a test whose worker publishes to a
 * sandbox network: the sandbox refuses a token it did not issue, and the account is disconnected.
 */
export async function insertAccount(
  t: TestApp,
  tenant: Pick<Tenant, 'workspaceId' | 'profileId'>,
  platform: PlatformName,
  o: Partial<InsertedAccount> & {
    status?: SocialAccountEntity['status'];
    metadata?: Record<string, unknown>;
    profileId?: string;
  } = {},
): Promise<InsertedAccount> {
  const box = new SecretBox(t.config);
  const accessToken = o.accessToken === null ? null : (o.accessToken ?? `tok_${randomBytes(8).toString('hex')}`);
  const platformAccountId = o.platformAccountId ?? `${platform}_${randomBytes(6).toString('hex')}`;
  const name = o.name ?? `${platform} page ${platformAccountId.slice(-4)}`;
  const row = await t.ds.getRepository(SocialAccountEntity).save({
    workspaceId: tenant.workspaceId,
    profileId: o.profileId ?? tenant.profileId,
    platform,
    platformAccountId,
    name,
    username: null,
    avatarUrl: null,
    status: o.status ?? 'active',
    accessTokenEnc: accessToken === null ? null : box.seal(accessToken),
    refreshTokenEnc: null,
    tokenKeyId: accessToken === null ? null : box.currentKeyId,
    tokenExpiresAt: null,
    refreshExpiresAt: null,
    scopes: [],
    metadata: o.metadata ?? {},
    commentSync: false,
    connectedAt: new Date(),
    disconnectedAt: null,
  });
  return { id: row.id, platform, name, platformAccountId, accessToken };
}

/** A post row with its targets, inserted directly (the worker's input, whatever API made it). */
export async function insertPost(
  t: TestApp,
  tenant: Pick<Tenant, 'workspaceId' | 'profileId'>,
  accounts: Pick<InsertedAccount, 'id' | 'platform'>[],
  o: { text?: string; state?: PostState; content?: Partial<PostContent> } = {},
): Promise<{ postId: string; targetIds: string[] }> {
  const postId = randomUUID();
  const posts = t.ds.getRepository(PostEntity);
  await posts.save(
    posts.create({
      id: postId,
      workspaceId: tenant.workspaceId,
      profileId: tenant.profileId,
      state: o.state ?? 'queued',
      contentType: 'text',
      message: o.text ?? 'Hello from the tests',
      caption: null,
      content: {
        contentType: 'text',
        message: o.text ?? 'Hello from the tests',
        ...o.content,
      },
      scheduledAt: null,
    }),
  );
  const targetIds: string[] = [];
  for (const a of accounts) {
    const id = randomUUID();
    targetIds.push(id);
    await t.ds.getRepository(PostTargetEntity).insert({
      id,
      postId,
      profileId: tenant.profileId,
      accountId: a.id,
      platform: a.platform,
      pageName: `page of ${a.platform}`,
    });
  }
  return { postId, targetIds };
}

export async function postState(t: TestApp, postId: string): Promise<PostState | undefined> {
  return (await t.ds.getRepository(PostEntity).findOne({ where: { id: postId } }))?.state;
}

export async function targetsOf(t: TestApp, postId: string): Promise<PostTargetEntity[]> {
  return t.ds.getRepository(PostTargetEntity).find({ where: { postId }, order: { createdAt: 'ASC', id: 'ASC' } });
}

/** Waits for a final state (published, partially_published, failed, cancelled). */
export async function waitForFinal(t: TestApp, postId: string, timeoutMs = 60_000): Promise<PostState> {
  return eventually(
    async () => {
      const s = await postState(t, postId);
      return s && FINAL_STATES.includes(s) ? s : undefined;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/**
 * Waits until no worker is left with the publish queue's job `jobId` (`publish:<postId>:1`, …):
 * done with ('completed', 'failed') or gone (a cancel drops a waiting one). Returns which.
 */
export async function publishJobSettled(t: TestApp, jobId: string): Promise<string> {
  return eventually(async () => {
    const job = await t.app.get(QueueService).queue('publish').getJob(jobId);
    if (!job) return 'gone';
    const state = await job.getState();
    return ['completed', 'failed'].includes(state) && state;
  });
}

export interface StoredEvent {
  id: string;
  type: string;
  data: Record<string, unknown> & { results?: Record<string, unknown>[] };
}

/** The post.* events (outbox rows) of one post, oldest first. */
export async function postEvents(t: TestApp, postId: string): Promise<StoredEvent[]> {
  return t.ds.query(
    `SELECT id, type, data FROM events WHERE type LIKE 'post.%' AND data->>'postId' = $1 ORDER BY created_at, id`,
    [postId],
  );
}

/**
 * Ids of the items a sandbox network holds for one account (what was really published there),
 * read straight from the sandbox's Redis store. Network-specific by nature: each simulator
 * keeps its own per-account list.
 */
export async function sandboxItems(
  t: TestApp,
  account: { platform: PlatformName; platformAccountId: string },
): Promise<string[]> {
  const lists: Partial<Record<PlatformName, string[]>> = {
    facebook: ['facebook', 'item', 'of', account.platformAccountId],
    linkedin: ['linkedin', 'post', 'of', account.platformAccountId],
    instagram: ['instagram', 'owner', account.platformAccountId, 'media'],
    threads: ['threads', 'owner', account.platformAccountId, 'media'],
    tiktok: ['tiktok', 'video', 'of', account.platformAccountId],
    youtube: ['youtube', 'video', 'of', account.platformAccountId],
  };
  const parts = lists[account.platform];
  if (!parts) throw new Error(`sandboxItems: no item list known for ${account.platform}`);
  const redis = t.app.get<Redis>(REDIS);
  const raw = await redis.lrange(redisKey(t.config, 'sandbox', ...parts), 0, -1);
  return raw.map((r) => JSON.parse(r) as string);
}

/** The profile's connected accounts, oldest first. */
export async function accountsOf(t: TestApp, profileId: string): Promise<SocialAccountEntity[]> {
  return t.ds.getRepository(SocialAccountEntity).find({ where: { profileId }, order: { createdAt: 'ASC' } });
}
