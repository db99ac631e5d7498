import { Injectable } from '@nestjs/common';
import { ApiError } from '@/common/errors/api-error';
import { PlatformRegistry } from '@/modules/networks/network-registry';
import type { PostContent } from '../entities/post.entity';
import type { FieldPaths } from '../post-shape';
import { composeFirstComment, composePublishContent } from '../publishing/compose-content';
import { firstCommentField, requestField, TargetIssue, TargetRef } from '../validation-fields';

/** The first blocked term a post's text contains (case-insensitive), and where. */
export function findBlockedTerm(
  content: PostContent,
  terms: readonly string[],
  paths: FieldPaths,
): { term: string; field: string } | null {
  const wanted = terms.map((t) => t.trim()).filter((t) => t !== '');
  if (wanted.length === 0) return null;
  const texts: [string, unknown][] = [
    [paths.text ?? `${paths.content}message`, content.message],
    [`${paths.content}caption`, content.caption],
    [`${paths.content}link`, content.link],
    ...Object.entries(content.platformCaptions ?? {}).map(([p, v]): [string, unknown] => [
      `${paths.content}platformCaptions.${p}`,
      v,
    ]),
    ...Object.entries(content.perAccount ?? {}).flatMap(([id, o]) =>
      Object.entries(o ?? {}).map(([k, v]): [string, unknown] => [`${paths.content}perAccount.${id}.${k}`, v]),
    ),
    ...Object.entries(content.platforms ?? {}).flatMap(([p, o]) =>
      Object.entries(o ?? {}).map(([k, v]): [string, unknown] => [`${paths.options}${p}.${k}`, v]),
    ),
  ];
  for (const [field, value] of texts) {
    if (typeof value !== 'string') continue;
    const lower = value.toLowerCase();
    const term = wanted.find((t) => lower.includes(t.toLowerCase()));
    if (term) return { term, field };
  }
  return null;
}

/**
 * Each target network's own rules (adapter.validate) over the content that target would
 * publish, shared by creation, PUT and POST /v1/posts/validate. Errors name the account, the
 * platform and the request field.
 */
@Injectable()
export class PostValidationService {
  constructor(private readonly registry: PlatformRegistry) {}

  check(content: PostContent, targets: TargetRef[], paths: FieldPaths): TargetIssue[] {
    const post = {
      contentType: content.contentType,
      message: content.message ?? null,
      caption: content.caption ?? null,
      content,
    };
    return targets.flatMap((target) => {
      const adapter = this.registry.get(target.platform);
      const issues = adapter.validate(composePublishContent(post, target)).map((issue) => ({
        accountId: target.accountId,
        platform: target.platform,
        field: requestField(issue.field, content, target, paths),
        message: issue.message,
      }));
      if (composeFirstComment(content, target) !== null && !adapter.postComment) {
        const field = firstCommentField(content, target, paths);
        issues.push({
          accountId: target.accountId,
          platform: target.platform,
          field,
          message: `${target.platform} does not let account ${target.accountId} post a first comment; leave it out for this account (perAccount.${target.accountId}.firstComment: null).`,
        });
      }
      return issues;
    });
  }

  /** 400 invalid_request with `details.errors` when a target network refuses the content. */
  assertValid(content: PostContent, targets: TargetRef[], paths: FieldPaths): void {
    const errors = this.check(content, targets, paths);
    const first = errors[0];
    if (!first) return;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more in details.errors)` : '';
    throw new ApiError(
      'invalid_request',
      `${first.field}: ${first.message} [${first.platform} account ${first.accountId}]${more}`,
      { field: first.field, errors },
    );
  }

  /** 400 invalid_request naming the blocked term (profile policy). */
  assertNoBlockedTerm(content: PostContent, terms: readonly string[], paths: FieldPaths): void {
    const hit = findBlockedTerm(content, terms, paths);
    if (hit)
      throw new ApiError(
        'invalid_request',
        `${hit.field} contains the blocked term '${hit.term}', which this profile's policy does not allow.`,
        { field: hit.field },
      );
  }
}
