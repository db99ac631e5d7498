import type { PlatformName } from '@/modules/networks/platform-name';
import type { PostContent } from './entities/post.entity';
import type { FieldPaths } from './post-shape';

export interface TargetRef {
  accountId: string;
  platform: PlatformName;
}

/** One failed network rule, as `POST /v1/posts/validate` and `details.errors` show it. */
export interface TargetIssue {
  accountId: string | null;
  platform: string | null;
  field: string;
  /** `daily_post_limit` for a network cap the target would exceed. */
  code?: string;
  message: string;
}

function obj(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * Where the text a target publishes came from, following the publisher's precedence
 * (compose-content.ts: perAccount caption/message → platformCaptions → message → caption).
 */
export function textField(content: PostContent, target: TargetRef, paths: FieldPaths): string {
  const c = paths.content;
  const own = obj(content.perAccount?.[target.accountId]);
  if (typeof own.caption === 'string') return `${c}perAccount.${target.accountId}.caption`;
  if (typeof own.message === 'string') return `${c}perAccount.${target.accountId}.message`;
  if (typeof content.platformCaptions?.[target.platform] === 'string') return `${c}platformCaptions.${target.platform}`;
  if (typeof content.message === 'string' || typeof content.caption !== 'string') return paths.text ?? `${c}message`;
  return `${c}caption`;
}

/**
 * Maps a field an adapter names (relative to the composed PublishContent: `text`, `imageUrls`,
 * `videoUrl`, `link`, `options.title`, `youtube.title`…) to the request field the client wrote.
 */
export function requestField(issueField: string, content: PostContent, target: TargetRef, paths: FieldPaths): string {
  const field = issueField.replace(/^content\./, '');
  const head = field.split(/[.[]/)[0] ?? field;
  const tail = field.slice(head.length);
  if (head === 'text') return textField(content, target, paths);
  if (head === 'imageUrls' || head === 'videoUrl') return paths.media ?? `${paths.content}${head}${tail}`;
  if (head === 'link' || head === 'contentType') return `${paths.content}${field}`;
  // Options may be named `options.title`, `youtube.title` or just `title`.
  const option = (head === 'options' || head === target.platform) && tail.startsWith('.') ? tail.slice(1) : field;
  const key = option.split(/[.[]/)[0] ?? option;
  if (key in obj(content.perAccount?.[target.accountId]))
    return `${paths.content}perAccount.${target.accountId}.${option}`;
  return `${paths.options}${target.platform}.${option}`;
}

/** Where the first comment a target would post came from (compose-content.ts: perAccount, then the post's). */
export function firstCommentField(content: PostContent, target: TargetRef, paths: FieldPaths): string {
  if ('firstComment' in obj(content.perAccount?.[target.accountId]))
    return `${paths.content}perAccount.${target.accountId}.firstComment`;
  return paths.firstComment ?? `${paths.content}firstComment`;
}
