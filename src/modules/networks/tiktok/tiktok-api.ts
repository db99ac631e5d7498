import type { AdapterEndpoints } from '../kit/adapter';
import { PlatformError } from '../kit/adapter';
import { answerError, ApiCall, categoryTable, isTransient, NetworkApi, NetworkReply, obj, str } from '../kit/http';

// TikTok's envelope: `{ data, error: { code, message, log_id } }`, `code: "ok"` on success
// (https://developers.tiktok.com/doc/content-posting-api-reference-direct-post, "Error codes").

const CATEGORY_BY_CODE = categoryTable({
  auth_expired: `access_token_invalid scope_not_authorized scope_permission_missed
    token_not_authorized_for_specified_open_id`,
  network_rate_limited: `rate_limit_exceeded spam_risk_too_many_posts spam_risk_too_many_pending_share
    reached_active_user_cap`,
  media_rejected: 'url_ownership_unverified',
  network_error: 'internal_error',
});

/** `fail_reason` of a FAILED publish (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status). */
const CATEGORY_BY_FAIL_REASON = categoryTable({
  media_rejected: `file_format_check_failed duration_check_failed frame_rate_check_failed picture_size_check_failed
    video_pull_failed photo_pull_failed`,
  auth_expired: 'auth_removed',
  network_rate_limited: 'spam_risk_too_many_posts',
  invalid_content: 'spam_risk_user_banned_from_posting spam_risk_text spam_risk publish_cancelled',
  network_error: 'internal',
});

/** A failed answer: its error code's category, else the HTTP status's (a code TikTok never sent reads `http_<status>`). */
function tiktokError(reply: NetworkReply): PlatformError {
  const { code, message } = obj(obj(reply.json).error);
  const networkCode = str(code) ?? `http_${reply.status}`;
  const category = CATEGORY_BY_CODE.get(networkCode);
  return answerError(str(message) || networkCode, { status: reply.status, networkCode, category }, reply.headers);
}

export function failReasonError(reason: string): PlatformError {
  const category = CATEGORY_BY_FAIL_REASON.get(reason) ?? 'invalid_content';
  const message = `TikTok could not publish the post: ${reason}.`;
  return new PlatformError(message, category, isTransient(category), { networkCode: reason });
}

/** Post ids are int64, maybe bare JSON numbers beyond 2^53: read from the text, as JSON.parse would round them. */
export function publicPostIds(text: string): string[] {
  const m = /"publicaly_available_post_id"\s*:\s*\[([^\]]*)\]/.exec(text);
  if (!m?.[1]) return [];
  return m[1].split(',').flatMap((s) => s.trim().replace(/^"|"$/g, '') || []);
}

/** open.tiktokapis.com: an envelope whose error.code is not "ok" is a failure even on HTTP 200. */
export class TikTokApi extends NetworkApi {
  constructor(endpoints: AdapterEndpoints) {
    super(endpoints.apiBaseUrl, endpoints.timeoutMs, tiktokError);
  }

  override async call(token: string | null, path: string, call: ApiCall = {}): Promise<NetworkReply> {
    const json: Record<string, string> =
      call.json !== undefined ? { 'Content-Type': 'application/json; charset=UTF-8' } : {};
    const reply = await super.call(token, path, { ...call, headers: { ...json, ...call.headers } });
    const code = str(obj(obj(reply.json).error).code);
    if (code && code !== 'ok') throw tiktokError(reply);
    return reply;
  }
}
