import { randomUUID } from 'node:crypto';

/**
 * The deliverable event types (spec: Events → Event types). Only these reach webhooks; audit-only
 * types in the events table (`api_key.created`, `webhook.updated`, …) never do.
 */
export const WEBHOOK_EVENT_TYPES = [
  'account.connected',
  'account.disconnected',
  'connection.completed',
  'connection.failed',
  'post.created',
  'post.scheduled',
  'post.published',
  'post.partially_published',
  'post.failed',
  'post.cancelled',
  'approval.requested',
  'approval.approved',
  'approval.rejected',
  'comment.received',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The single wildcard entry: every type, including ones added later. */
export const WILDCARD = '*';

export function isWebhookEventType(type: string): type is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
}

type SampleResults = 'none' | 'success' | 'failed' | 'both';

/**
 * `data` of a synthetic event sent by `POST /v1/webhooks/{id}/test`: the shape of a real one of
 * that type, with made-up ids and `test: true`.
 */
export function sampleEventData(type: WebhookEventType, profileId: string): Record<string, unknown> {
  const base = { profileId, test: true };
  // Same fields as the account objects real events carry (AccountDto).
  const account = {
    id: randomUUID(),
    profileId,
    platform: 'facebook',
    platformAccountId: '100000000000001',
    name: 'Sample Page',
    username: 'samplepage',
    avatarUrl: null,
    status: 'active',
    commentSync: false,
    connectedAt: new Date().toISOString(),
    tokenExpiresAt: null,
  };
  const sessionId = randomUUID();
  const post = (status: string, kind: SampleResults = 'none'): Record<string, unknown> => {
    const success = {
      targetId: randomUUID(),
      accountId: account.id,
      platform: 'facebook',
      pageName: 'Sample Page',
      status: 'success',
      result: { id: 'sample_123', url: null },
    };
    const failed = {
      targetId: randomUUID(),
      accountId: randomUUID(),
      platform: 'instagram',
      pageName: 'Sample Account',
      status: 'failed',
      error: 'Sample platform error',
    };
    const results =
      kind === 'both' ? [success, failed] : kind === 'success' ? [success] : kind === 'failed' ? [failed] : [];
    return {
      ...base,
      postId: randomUUID(),
      status,
      state: status,
      scheduledAt: status === 'scheduled' ? new Date(Date.now() + 3600_000).toISOString() : null,
      completedTargets: results.filter((r) => r.status === 'success').length,
      failedTargets: results.filter((r) => r.status === 'failed').length,
      results,
    };
  };
  switch (type) {
    case 'post.created':
      return post('draft');
    case 'post.scheduled':
      return post('scheduled');
    case 'post.published':
      return post('published', 'success');
    case 'post.partially_published':
      return post('partially_published', 'both');
    case 'post.failed':
      return post('failed', 'failed');
    case 'post.cancelled':
      return post('cancelled');
    case 'approval.requested':
      return post('pending_approval');
    case 'approval.approved':
      return post('approved');
    case 'approval.rejected':
      return post('rejected');
    case 'account.connected':
      return { ...base, account, reconnected: false, sessionId };
    case 'account.disconnected':
      return { ...base, account: { ...account, status: 'disconnected' }, reason: 'requested' };
    case 'connection.completed':
      return { ...base, sessionId, platform: 'facebook', accounts: [account] };
    case 'connection.failed':
      return {
        ...base,
        sessionId,
        platform: 'facebook',
        status: 'failed',
        error: { code: 'access_denied', message: 'The person declined the consent (sample).' },
      };
    case 'comment.received':
      return {
        ...base,
        comment: {
          id: randomUUID(),
          accountId: account.id,
          platform: 'facebook',
          postId: randomUUID(),
          text: 'Sample comment',
          createdAt: new Date().toISOString(),
        },
      };
  }
}
