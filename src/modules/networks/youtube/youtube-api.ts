import type { ErrorCategory } from '../kit/adapter';
import type { AdapterEndpoints } from '../kit/adapter';
import { PlatformError } from '../kit/adapter';
import { arr, callNetwork, HttpMethod, NetworkReply, num, obj, retryAfterSeconds, str } from '../kit/http';

/**
 * Google's error body: `{ error: { code, message, errors: [{ message, domain, reason }] } }`
 * (https://developers.google.com/youtube/v3/docs/errors).
 */

const RATE_REASONS = new Set([
  'quotaExceeded',
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'uploadLimitExceeded',
  'dailyLimitExceeded',
]);
const AUTH_REASONS = new Set([
  'authError',
  'invalidCredentials',
  'youtubeSignupRequired',
  'insufficientPermissions',
  'forbidden',
  'accountDelegationForbidden',
]);
const MEDIA_REASONS = new Set([
  'mediaBodyRequired',
  'invalidFilename',
  'invalidVideoFile',
  'unsupportedMediaType',
  'uploadRejected',
  'videoFileTooLarge',
]);

export function youtubeError(reply: NetworkReply): PlatformError {
  const err = obj(obj(reply.json).error);
  const status = num(err.code) || reply.status;
  const reason = str(obj(arr(err.errors)[0]).reason) ?? str(err.status);
  // Google puts an HTML link into some messages (quota); keep the words only.
  const message = (str(err.message) ?? (reply.text.slice(0, 300) || `YouTube answered HTTP ${reply.status}.`)).replace(
    /<[^>]+>/g,
    '',
  );
  let category: ErrorCategory;
  if (reason && RATE_REASONS.has(reason)) category = 'network_rate_limited';
  else if (status >= 500) category = 'network_error';
  else if (status === 429) category = 'network_rate_limited';
  else if (status === 401 || (reason && AUTH_REASONS.has(reason))) category = 'auth_expired';
  else if (reason && MEDIA_REASONS.has(reason)) category = 'media_rejected';
  else category = 'invalid_content';
  const retryable = category === 'network_error' || category === 'network_rate_limited';
  return new PlatformError(message, category, retryable, {
    status,
    networkCode: reason,
    retryAfterSeconds: retryAfterSeconds(reply.headers),
  });
}

/**
 * Google serves tokens and YouTube Analytics from hosts of their own; the sandbox serves them
 * under its API base (`/token`, `/v2/reports`).
 */
export function googleHosts(e: AdapterEndpoints): { tokenUrl: string; analyticsBaseUrl: string } {
  const isGoogle = new URL(e.apiBaseUrl).host === 'www.googleapis.com';
  return isGoogle
    ? { tokenUrl: 'https://oauth2.googleapis.com/token', analyticsBaseUrl: 'https://youtubeanalytics.googleapis.com' }
    : { tokenUrl: `${e.apiBaseUrl}/token`, analyticsBaseUrl: e.apiBaseUrl };
}

export class YouTubeClient {
  readonly hosts: { tokenUrl: string; analyticsBaseUrl: string };

  constructor(readonly endpoints: AdapterEndpoints) {
    this.hosts = googleHosts(endpoints);
  }

  /** A YouTube Data API v3 call; `creates`: it makes something (a lost answer is an unknown outcome). */
  api(
    token: string,
    method: HttpMethod,
    pathAndQuery: string,
    json?: unknown,
    creates?: boolean,
  ): Promise<NetworkReply> {
    return callNetwork(
      {
        method,
        url: `${this.endpoints.apiBaseUrl}/youtube/v3${pathAndQuery}`,
        headers: { Authorization: `Bearer ${token}` },
        json,
        creates,
        timeoutMs: this.endpoints.timeoutMs,
      },
      youtubeError,
    );
  }

  /** A YouTube Analytics API v2 report. */
  report(token: string, query: Record<string, string>): Promise<NetworkReply> {
    const q = new URLSearchParams(query).toString();
    return callNetwork(
      {
        url: `${this.hosts.analyticsBaseUrl}/v2/reports?${q}`,
        headers: { Authorization: `Bearer ${token}` },
        timeoutMs: this.endpoints.timeoutMs,
      },
      youtubeError,
    );
  }
}
