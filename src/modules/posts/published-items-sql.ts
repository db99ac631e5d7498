/**
 * The posts module's part of a query that ranks published items (analytics' top content ranks its
 * metrics and shows each post's text and URL, ORDER BY … LIMIT over the join, in one query): joins
 * `rows` (carrying `target_id` and `post_id`) to their target `t` and post `p` of the profile and
 * workspace bound to the named parameters. The caller may read t.published_at, t.external_url,
 * p.id, p.message, p.caption and p.content_type, and scope `p` with postScopeCondition.
 */
export function joinPublishedItems(rows: string, profileParam: string, workspaceParam: string): string {
  return `JOIN post_targets t ON t.id = ${rows}.target_id AND t.profile_id = ${profileParam}
         JOIN posts p ON p.id = ${rows}.post_id AND p.profile_id = ${profileParam} AND p.workspace_id = ${workspaceParam}`;
}
