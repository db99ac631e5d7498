import type { PostEntity } from './entities/post.entity';
import type { PostTargetEntity } from './entities/post-target.entity';

/** A target's result as webhooks carry it (spec: Target result). */
export interface TargetResult {
  targetId: string;
  accountId: string;
  platform: string;
  pageName: string;
  status: 'success' | 'failed' | 'pending';
  result?: { id: string; url: string | null };
  error?: string;
  errorCategory?: string;
  /** Once the target's first comment is settled (posted or not). */
  firstComment?: { status: 'success' | 'failed'; id: string | null; error: string | null };
}

export function targetResult(t: PostTargetEntity): TargetResult {
  const comment = t.firstCommentStatus;
  const base = {
    targetId: t.id,
    accountId: t.accountId,
    platform: t.platform,
    pageName: t.pageName,
    ...(comment === 'success' || comment === 'failed'
      ? { firstComment: { status: comment, id: t.firstCommentId, error: t.firstCommentError } }
      : {}),
  };
  if (t.status === 'success')
    return { ...base, status: 'success', result: { id: t.externalId ?? '', url: t.externalUrl } };
  if (t.status === 'failed')
    return {
      ...base,
      status: 'failed',
      error: t.error ?? 'Unknown error',
      ...(t.errorCategory ? { errorCategory: t.errorCategory } : {}),
    };
  return { ...base, status: 'pending' };
}

/**
 * `data` of every post.* event: postId, status (+ the deprecated `state` copy), target counts
 * and results. profileId is added by the outbox.
 */
export function postEventData(
  post: Pick<PostEntity, 'id' | 'state' | 'scheduledAt'>,
  targets: PostTargetEntity[],
): Record<string, unknown> {
  return {
    postId: post.id,
    status: post.state,
    state: post.state,
    scheduledAt: post.scheduledAt ? post.scheduledAt.toISOString() : null,
    completedTargets: targets.filter((t) => t.status === 'success').length,
    failedTargets: targets.filter((t) => t.status === 'failed').length,
    results: targets.filter((t) => t.status === 'success' || t.status === 'failed').map(targetResult),
  };
}
