import { postIdInScopeCondition } from '../posts/post-scope';

/**
 * What a key restricted to accounts may see of the audit trail and of webhook deliveries: an
 * event is visible when every account it names (`accountId` at any depth, `accountIds`,
 * `account.id`, `accounts[].id`) is among the key's accounts, and, when it names a post
 * (`postId`), that post is visible to the key (post-scope.ts). Events naming no account or post
 * (profile, policy, key and webhook administration) stay visible.
 *
 * `data` is the SQL expression of the event's jsonb; the key's accounts are bound to the named
 * parameter (a uuid[]).
 */
export function eventScopeCondition(data: string, param = ':scopeAccountIds'): string {
  return `(NOT EXISTS (
      SELECT 1 FROM (
        SELECT jsonb_path_query(${data}, 'lax $.**.accountId') AS v
        UNION ALL SELECT jsonb_path_query(${data}, 'lax $.**.accountIds[*]')
        UNION ALL SELECT jsonb_path_query(${data}, 'lax $.account.id')
        UNION ALL SELECT jsonb_path_query(${data}, 'lax $.accounts[*].id')
      ) refs WHERE NOT ((refs.v #>> '{}') = ANY((${param}::uuid[])::text[]))
    )
    AND ((${data}->>'postId') IS NULL OR ${postIdInScopeCondition(`${data}->>'postId'`, param)}))`;
}
