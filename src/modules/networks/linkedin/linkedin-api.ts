import type { AdapterEndpoints, PlatformError } from '../kit/adapter';
import { answerError, NetworkApi, NetworkReply, num, obj, str } from '../kit/http';

/** Versioned LinkedIn APIs (/rest) need a YYYYMM version; each is supported for a year. */
const LINKEDIN_VERSION = '202606';

/**
 * LinkedIn's error body: `{ status, serviceErrorCode, code, message }`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling).
 */
function linkedinError(reply: NetworkReply): PlatformError {
  const body = obj(reply.json);
  const status = num(body.status) || reply.status;
  const message = str(body.message) ?? (reply.text.slice(0, 300) || `LinkedIn answered HTTP ${reply.status}.`);
  // 401: missing/expired/revoked token (serviceErrorCode 65600/65601/65602); 403: the grant lacks a permission.
  const aboutMedia = /\b(image|video|media|upload|asset)\b/i.test(message);
  const otherwise = status === 403 ? 'auth_expired' : aboutMedia ? 'media_rejected' : 'invalid_content';
  const networkCode = str(body.code) ?? str(body.serviceErrorCode);
  return answerError(message, { status, networkCode, otherwise }, reply.headers);
}

/** Characters of LinkedIn's "little text" format that must be backslash-escaped in `commentary`. */
const LITTLE_TEXT_RESERVED = /[\\|{}@[\]()<>#*_~]/g;

export const escapeLittleText = (text: string): string => text.replace(LITTLE_TEXT_RESERVED, (c) => `\\${c}`);
export const unescapeLittleText = (text: string): string => text.replace(/\\([\\|{}@[\]()<>#*_~])/g, '$1');

/** A YYYY-MM-DD day as LinkedIn's date `{ day, month, year }` (the analytics' date ranges). */
export function liDate(date: string): { day: number; month: number; year: number } {
  const [year, month, day] = date.split('-').map(Number);
  return { day, month, year };
}

/** URNs go into paths and Rest.li 2.0 query values URL-encoded. */
export const enc = (urn: string): string => encodeURIComponent(urn);

export class LinkedInClient {
  readonly rest: NetworkApi;
  /** OpenID Connect userinfo (unversioned /v2), and PUTs to the upload URLs LinkedIn hands out. */
  readonly plain: NetworkApi;

  constructor(readonly endpoints: AdapterEndpoints) {
    const { apiBaseUrl, timeoutMs } = endpoints;
    this.rest = new NetworkApi(`${apiBaseUrl}/rest`, timeoutMs, linkedinError, {
      'LinkedIn-Version': LINKEDIN_VERSION,
      'X-Restli-Protocol-Version': '2.0.0',
    });
    this.plain = new NetworkApi(apiBaseUrl, timeoutMs, linkedinError);
  }

  /** PUT media bytes to an upload URL. Images want the bearer token; video parts are pre-signed. */
  upload(url: string, bytes: Uint8Array, contentType: string, token: string | null = null): Promise<NetworkReply> {
    return this.plain.call(token, url, { method: 'PUT', bytes, headers: { 'Content-Type': contentType } });
  }
}
