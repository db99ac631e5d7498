import type { PublishContent } from '@/modules/networks/kit/adapter';
import type { PostContent, PostEntity } from '../entities/post.entity';
import type { PostTargetEntity } from '../entities/post-target.entity';

/** Keys of a perAccount entry that are text, not options. */
const TEXT_KEYS = new Set(['caption', 'message', 'firstComment']);

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function obj(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The text one target publishes. The most specific wins: the account's own override, then the
 * platform's caption, then the post's message (or caption).
 */
export function composeText(
  content: PostContent,
  post: Pick<PostEntity, 'message' | 'caption'>,
  target: Pick<PostTargetEntity, 'platform' | 'accountId'>,
): string {
  const perAccount = obj(content.perAccount?.[target.accountId]);
  return (
    str(perAccount.caption) ??
    str(perAccount.message) ??
    str(content.platformCaptions?.[target.platform]) ??
    str(content.message) ??
    post.message ??
    str(content.caption) ??
    post.caption ??
    ''
  );
}

/** Platform options (`content.platforms[platform]`) with the account's overrides merged over them. */
export function composeOptions(
  content: PostContent,
  target: Pick<PostTargetEntity, 'platform' | 'accountId'>,
): Record<string, unknown> {
  const overrides = Object.fromEntries(
    Object.entries(obj(content.perAccount?.[target.accountId])).filter(([k]) => !TEXT_KEYS.has(k)),
  );
  return { ...obj(content.platforms?.[target.platform]), ...overrides };
}

/** What the adapter publishes for one target of a post. */
export function composePublishContent(
  post: Pick<PostEntity, 'contentType' | 'message' | 'caption' | 'content'>,
  target: Pick<PostTargetEntity, 'platform' | 'accountId'>,
): PublishContent {
  const content = post.content;
  return {
    contentType: content.contentType ?? post.contentType,
    text: composeText(content, post, target),
    link: content.link ?? null,
    imageUrls: content.imageUrls ?? [],
    videoUrl: content.videoUrl ?? null,
    options: composeOptions(content, target),
  };
}

/**
 * The first comment one target posts once published, or null for none: the account's own
 * `perAccount[id].firstComment` when given (null or blank: none for this account), else the post's.
 */
export function composeFirstComment(
  content: Pick<PostContent, 'firstComment' | 'perAccount'>,
  target: Pick<PostTargetEntity, 'accountId'>,
): string | null {
  const own = obj(content.perAccount?.[target.accountId]);
  const text = 'firstComment' in own ? own.firstComment : content.firstComment;
  return typeof text === 'string' && text.trim() !== '' ? text : null;
}
