import { Injectable } from '@nestjs/common';
import { randomBytes, randomInt } from 'node:crypto';
import { MagicErrors, SANDBOX_RATE_LIMIT_SECONDS } from '../kit/sandbox/magic-words';
import type { SandboxAuthSpec } from '../kit/sandbox/sandbox-auth';
import { SandboxHttpError, withRetryAfter } from '../kit/sandbox/sandbox-http';
import { stableInt } from '../kit/sandbox/sandbox-metrics';
import { grantRoute, type SandboxLogin } from '../kit/sandbox/sandbox-login';
import { OAuthFailure, oauthError } from '../kit/sandbox/sandbox-oauth';
import { qs } from '../kit/sandbox/sandbox-request';
import { SimulatorState } from '../kit/sandbox/sandbox-store';

/** State and rules of the simulated LinkedIn (members, their organisations, media, posts). */

/** LinkedIn's error body `{ status, serviceErrorCode, code, message }`. */
export function liFail(status: number, message: string, code?: string, serviceErrorCode?: number): SandboxHttpError {
  return new SandboxHttpError(status, {
    status,
    ...(serviceErrorCode !== undefined ? { serviceErrorCode } : {}),
    ...(code ? { code } : {}),
    message,
  });
}

/** A Rest.li collection answer (`count` defaults to 10, LinkedIn's page size). */
export const collection = (elements: unknown[], count = 10) => ({ paging: { count, start: 0, links: [] }, elements });

export interface LiOrg {
  urn: string;
  id: number;
  name: string;
  vanity: string;
}

export interface LiMember {
  userId: string;
  sub: string;
  urn: string;
  name: string;
  orgs: LiOrg[];
}

export interface LiImage {
  urn: string;
  owner: string;
  status: 'WAITING_UPLOAD' | 'AVAILABLE';
}

export interface LiVideo {
  urn: string;
  owner: string;
  size: number;
  parts: { firstByte: number; lastByte: number; etag: string | null }[];
  finalizedAt: string | null;
}

export interface LiPost {
  id: string;
  author: string;
  commentary: string;
  visibility: string;
  lifecycleState: string;
  content?: Record<string, unknown>;
  createdAt: number;
  publishedAt: number;
  lastModifiedAt: number;
}

/** Videos leave PROCESSING this long after finalizeUpload (the adapter polls at least once). */
export const LI_VIDEO_PROCESSING_MS = 500;
export const LI_PART_BYTES = 4 * 1024 * 1024;

const ORG_NAMES = ['Sandbox Labs', 'Sandbox Media'];

function liAuthError(reason: OAuthFailure | 'missing_token'): SandboxHttpError {
  if (reason === 'missing_token') return liFail(401, 'Empty oauth2_access_token', undefined, 401);
  if (reason === 'expired_token')
    return liFail(401, 'The token used in the request has expired', 'EXPIRED_ACCESS_TOKEN', 65601);
  if (reason === 'revoked_token')
    return liFail(401, 'The token used in the request has been revoked by the user', 'REVOKED_ACCESS_TOKEN', 65602);
  return liFail(401, 'Invalid access token', 'INVALID_ACCESS_TOKEN', 65600);
}

/** The member behind a bearer token, with the two organisations every sandbox member administers. */
export const LI_MEMBER: SandboxAuthSpec<LiMember> = {
  network: 'linkedin',
  fail: liAuthError,
  caller: (info) => memberOf(info.grant.userId),
};

/** A versioned /rest call's member: like LinkedIn's, it needs both version headers first. */
export const LI_REST: SandboxAuthSpec<LiMember> = {
  ...LI_MEMBER,
  check: (req) => {
    const version = req.header('linkedin-version');
    if (!version)
      throw liFail(
        400,
        'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
        'VERSION_MISSING',
      );
    if (!/^\d{6}(\.\d{2})?$/.test(version))
      throw liFail(426, `Requested version ${version} is not active`, 'NONEXISTENT_VERSION');
    if (req.header('x-restli-protocol-version') !== '2.0.0')
      throw liFail(400, 'The X-Restli-Protocol-Version header must be 2.0.0 for this API.', 'ILLEGAL_ARGUMENT');
  },
};

const ACCESS_TTL = 60 * 24 * 3600;
const REFRESH_TTL = 365 * 24 * 3600;

/** LinkedIn's OAuth 2.0: authorization_code and refresh_token grants (refresh tokens as LinkedIn grants them to partners). */
export const LINKEDIN_LOGIN: SandboxLogin = {
  network: 'linkedin',
  appLabel: 'LinkedIn app',
  authorize: 'oauth/v2/authorization',
  tokens: [
    grantRoute(
      'linkedin',
      'oauth/v2/accessToken',
      () => ({
        invalidClient: () => oauthError(401, 'invalid_client', 'Client authentication failed'),
        unsupportedGrant: () => oauthError(400, 'unsupported_grant_type', 'The grant_type is not supported'),
        invalidGrant: (refreshingGrant) =>
          oauthError(
            400,
            'invalid_request',
            refreshingGrant
              ? 'The provided refresh token is invalid'
              : 'Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired. Or external member binding exists',
          ),
      }),
      async (oauth, grant, refreshing, body) => {
        const refreshToken = refreshing ? qs(body.refresh_token) : null;
        // A refresh keeps the grant's refresh token; a code also gets a refresh token (a year).
        const ttls = refreshToken ? {} : { refreshTtlSeconds: REFRESH_TTL };
        const issued = await oauth.issueTokens(grant, { accessTtlSeconds: ACCESS_TTL, ...ttls, prefix: 'AQ' });
        return {
          access_token: issued.accessToken,
          expires_in: ACCESS_TTL,
          refresh_token: refreshToken ?? issued.refreshToken,
          refresh_token_expires_in: REFRESH_TTL,
          scope: grant.scopes.join(','),
        };
      },
    ),
  ],
};

/** LinkedIn's answers to the magic words. */
export const LI_MAGIC: MagicErrors = {
  invalid_content: (m) => liFail(422, m, 'UNPROCESSABLE_ENTITY'),
  auth_expired: (m) =>
    liFail(401, `The token used in the request has been revoked by the user. ${m}`, 'REVOKED_ACCESS_TOKEN', 65601),
  media_rejected: (m) => liFail(400, `The media asset failed processing. ${m}`),
  rate_limited: (m) =>
    withRetryAfter(
      liFail(429, `Resource level throttle APPLICATION DAY limit for calls to this resource is reached. ${m}`),
      SANDBOX_RATE_LIMIT_SECONDS,
    ),
  transient: (m) => liFail(503, m, 'SERVICE_UNAVAILABLE'),
};

@Injectable()
export class LinkedInSandbox extends SimulatorState {
  protected readonly network = 'linkedin';
  readonly images = this.records<LiImage>('image', (i) => i.urn);
  readonly videos = this.records<LiVideo>('video', (v) => v.urn);
  /** By author. */
  readonly posts = this.records<LiPost>('post', (p) => p.id);

  /** May the member act as `owner` (itself or an organisation it administers)? */
  assertOwner(member: LiMember, owner: unknown, what: string): string {
    if (typeof owner === 'string' && (owner === member.urn || member.orgs.some((o) => o.urn === owner))) return owner;
    throw liFail(403, `Not enough permissions to access: ${what} for owner ${String(owner)}`, 'ACCESS_DENIED', 100);
  }

  newId(): string {
    return `${Date.now()}${randomInt(100000, 999999)}`.slice(0, 19);
  }

  newMediaKey(): string {
    return `C4E${randomBytes(9).toString('base64url')}`;
  }
}

export function memberOf(userId: string): LiMember {
  const sub = BigInt(userId).toString(36);
  const orgs = ORG_NAMES.map((name, i) => {
    const id = stableInt(10_000_000, 99_999_999, userId, 'linkedin-org', String(i));
    return {
      urn: `urn:li:organization:${id}`,
      id,
      name: `${name} ${userId.slice(-4)}`,
      vanity: `${name.toLowerCase().replace(/\s+/g, '-')}-${userId.slice(-4)}`,
    };
  });
  return { userId, sub, urn: `urn:li:person:${sub}`, name: `Sandbox Member ${userId.slice(-4)}`, orgs };
}

/** LinkedIn's "little text": reserved characters arrive backslash-escaped. */
export function littleTextToPlain(text: string): string {
  return text.replace(/\\([\\|{}@[\]()<>#*_~])/g, '$1');
}
