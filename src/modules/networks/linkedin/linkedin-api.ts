import type { AdapterEndpoints } from '../kit/adapter';
import { PlatformError } from '../kit/adapter';
import { callNetwork, HttpMethod, NetworkReply, num, obj, retryAfterSeconds, str } from '../kit/http';

/** Versioned LinkedIn APIs (/rest) need a YYYYMM version; each is supported for a year. */
export const LINKEDIN_VERSION = '202606';

/**
 * LinkedIn's error body: `{ status, serviceErrorCode, code, message }`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling).
 */
export function linkedinError(reply: NetworkReply): PlatformError {
  const body = obj(reply.json);
  const status = num(body.status) || reply.status;
  const message = str(body.message) ?? (reply.text.slice(0, 300) || `LinkedIn answered HTTP ${reply.status}.`);
  const networkCode = str(body.code) ?? str(body.serviceErrorCode);
  const details = { status, networkCode, retryAfterSeconds: retryAfterSeconds(reply.headers) };
  if (status >= 500) return new PlatformError(message, 'network_error', true, details);
  if (status === 429) return new PlatformError(message, 'network_rate_limited', true, details);
  // 401: missing/expired/revoked token (serviceErrorCode 65600/65601/65602); 403: the grant lacks a permission.
  if (status === 401 || status === 403) return new PlatformError(message, 'auth_expired', false, details);
  if (/\b(image|video|media|upload|asset)\b/i.test(message))
    return new PlatformError(message, 'media_rejected', false, details);
  return new PlatformError(message, 'invalid_content', false, details);
}

/** Characters of LinkedIn's "little text" format that must be backslash-escaped in `commentary`. */
const LITTLE_TEXT_RESERVED = /[\\|{}@[\]()<>#*_~]/g;

export function escapeLittleText(text: string): string {
  return text.replace(LITTLE_TEXT_RESERVED, (c) => `\\${c}`);
}

export function unescapeLittleText(text: string): string {
  return text.replace(/\\([\\|{}@[\]()<>#*_~])/g, '$1');
}

/** URNs go into paths and Rest.li 2.0 query values URL-encoded. */
export const enc = (urn: string): string => encodeURIComponent(urn);

export interface RestOptions {
  json?: unknown;
  creates?: boolean;
}

/** The authenticated calls of one adapter instance. */
export class LinkedInClient {
  constructor(readonly endpoints: AdapterEndpoints) {}

  /** A versioned /rest call (Posts, Images, Videos, organizations, analytics). */
  rest(token: string, method: HttpMethod, pathAndQuery: string, opts: RestOptions = {}): Promise<NetworkReply> {
    return callNetwork(
      {
        method,
        url: `${this.endpoints.apiBaseUrl}/rest${pathAndQuery}`,
        headers: {
          Authorization: `Bearer ${token}`,
          'LinkedIn-Version': LINKEDIN_VERSION,
          'X-Restli-Protocol-Version': '2.0.0',
        },
        json: opts.json,
        creates: opts.creates,
        timeoutMs: this.endpoints.timeoutMs,
      },
      linkedinError,
    );
  }

  /** OpenID Connect userinfo (unversioned /v2). */
  userinfo(token: string): Promise<NetworkReply> {
    return callNetwork(
      {
        url: `${this.endpoints.apiBaseUrl}/v2/userinfo`,
        headers: { Authorization: `Bearer ${token}` },
        timeoutMs: this.endpoints.timeoutMs,
      },
      linkedinError,
    );
  }

  /** PUT media bytes to an upload URL LinkedIn handed out. Images want the bearer token; video parts are pre-signed. */
  upload(url: string, bytes: Uint8Array, contentType: string, token?: string): Promise<NetworkReply> {
    const headers: Record<string, string> = { 'Content-Type': contentType };
    if (token) headers.Authorization = `Bearer ${token}`;
    return callNetwork({ method: 'PUT', url, headers, bytes, timeoutMs: this.endpoints.timeoutMs }, linkedinError);
  }
}
