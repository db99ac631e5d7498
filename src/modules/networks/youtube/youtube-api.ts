import type { AdapterEndpoints, PlatformError } from '../kit/adapter';
import { answerError, arr, categoryTable, NetworkApi, NetworkReply, num, obj, str } from '../kit/http';

// Google's error body: `{ error: { code, message, errors: [{ reason }] } }`
// (https://developers.google.com/youtube/v3/docs/errors).

/** What Google's error reasons mean: quota and rate reasons come before the HTTP status, the others after it. */
const REASONS = categoryTable({
  network_rate_limited: 'quotaExceeded rateLimitExceeded userRateLimitExceeded uploadLimitExceeded dailyLimitExceeded',
  auth_expired: `authError invalidCredentials youtubeSignupRequired insufficientPermissions forbidden
    accountDelegationForbidden`,
  media_rejected: `mediaBodyRequired invalidFilename invalidVideoFile unsupportedMediaType uploadRejected
    videoFileTooLarge`,
});

function youtubeError(reply: NetworkReply): PlatformError {
  const err = obj(obj(reply.json).error);
  const status = num(err.code) || reply.status;
  const reason = str(obj(arr(err.errors)[0]).reason) ?? str(err.status);
  const said = str(err.message) ?? (reply.text.slice(0, 300) || `YouTube answered HTTP ${reply.status}.`);
  // Google puts an HTML link into some messages (quota); keep the words only.
  const message = said.replace(/<[^>]+>/g, '');
  const byReason = reason === undefined ? undefined : REASONS.get(reason);
  const category = byReason === 'network_rate_limited' ? byReason : undefined;
  return answerError(message, { status, networkCode: reason, category, otherwise: byReason }, reply.headers);
}

/** Google serves tokens and YouTube Analytics from hosts of their own; the sandbox under its API base. */
export function googleHosts(e: AdapterEndpoints): { tokenUrl: string; analyticsBaseUrl: string } {
  const isGoogle = new URL(e.apiBaseUrl).host === 'www.googleapis.com';
  return isGoogle
    ? { tokenUrl: 'https://oauth2.googleapis.com/token', analyticsBaseUrl: 'https://youtubeanalytics.googleapis.com' }
    : { tokenUrl: `${e.apiBaseUrl}/token`, analyticsBaseUrl: e.apiBaseUrl };
}

export class YouTubeClient {
  readonly data: NetworkApi;
  readonly reports: NetworkApi;
  readonly upload: NetworkApi;

  constructor(readonly endpoints: AdapterEndpoints) {
    const { apiBaseUrl, timeoutMs } = endpoints;
    this.data = new NetworkApi(`${apiBaseUrl}/youtube/v3`, timeoutMs, youtubeError);
    this.reports = new NetworkApi(`${googleHosts(endpoints).analyticsBaseUrl}/v2/reports`, timeoutMs, youtubeError);
    this.upload = new NetworkApi(apiBaseUrl, timeoutMs, youtubeError);
  }
}
