/**
 * Query parameters of /v1 routes whose values are logged as they are: filters and paging, never
 * secrets. Every other value, and every value outside /v1 (hosted connect and upload pages, OAuth
 * callbacks with `code` and `state`, signed upload URLs), is logged as `[REDACTED]`.
 */
const LOGGED_AS_IS = new Set([
  'page',
  'limit',
  'state',
  'status',
  'platform',
  'contentType',
  'type',
  'method',
  'profileId',
  'accountId',
  'postId',
  'from',
  'to',
]);

export const REDACTED = '[REDACTED]';

/** `path?query` as logs show it: the path, and the query with secret-bearing values redacted. */
export function redactUrl(url: string | undefined): string {
  if (!url) return '';
  const q = url.indexOf('?');
  if (q < 0) return url;
  const path = url.slice(0, q);
  const api = path === '/v1' || path.startsWith('/v1/');
  const parts: string[] = [];
  for (const [name, value] of new URLSearchParams(url.slice(q + 1))) {
    const shown = api && LOGGED_AS_IS.has(name) ? encodeURIComponent(value) : REDACTED;
    parts.push(`${encodeURIComponent(name)}=${shown}`);
  }
  return parts.length ? `${path}?${parts.join('&')}` : path;
}
