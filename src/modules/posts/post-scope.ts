import type { EntityManager } from 'typeorm';
import type { AuthContext } from '@/common/auth/auth-context';

/**
 * What a key restricted to accounts (`accountIds`) may see of posts: only posts whose targets are
 * ALL among its accounts. Anything else answers exactly like a missing post (404 not_found), and
 * lists (and their `total`) leave it out. Keys without the restriction see every post of the profile.
 */
export type PostScope = Pick<AuthContext, 'accountIds'>;

/**
 * SQL condition on a post row (`alias.id`): true when every target lies within the accounts bound
 * to the named parameter (a uuid[]). Usable in TypeORM query builders and raw queries alike.
 */
export function postScopeCondition(alias: string, param = ':scopeAccountIds'): string {
  return `NOT EXISTS (SELECT 1 FROM post_targets st WHERE st.post_id = ${alias}.id AND st.account_id <> ALL(${param}::uuid[]))`;
}

/**
 * SQL condition on a text expression holding a post id (`postIdText`): true when that post exists
 * and lies within the accounts bound to the named parameter (what the audit trail filters by).
 */
export function postIdInScopeCondition(postIdText: string, param = ':scopeAccountIds'): string {
  return `EXISTS (SELECT 1 FROM posts sp WHERE sp.id::text = ${postIdText} AND ${postScopeCondition('sp', param)})`;
}

/** True when the key may see the post (always for keys without an account restriction). */
export async function isPostInScope(m: EntityManager, scope: PostScope, postId: string): Promise<boolean> {
  if (!scope.accountIds) return true;
  const rows = await m.query<unknown[]>(
    'SELECT 1 FROM post_targets WHERE post_id = $1 AND account_id <> ALL($2::uuid[]) LIMIT 1',
    [postId, scope.accountIds],
  );
  return rows.length === 0;
}
