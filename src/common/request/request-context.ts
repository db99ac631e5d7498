import type { Request } from 'express';
import { pooledRandom } from '../crypto/random-pool';
import type { AuthContext } from '../auth/auth-context';
import type { AuthenticatedKey } from '../auth/auth.service';

/** What the service attaches to each Express request. */
export interface ServiceRequest extends Request {
  id: string;
  startedAt: number;
  auth?: AuthContext;
  /** The key behind the request once it authenticated, even when a later check (rate limit,
   * permission, trial, profile) refused it: request logs attribute those refusals to the key. */
  caller?: { workspaceId: string; keyId: string; homeProfileId: string };
  /** The key and workspace found (and rate-limited) before the body was read. */
  identified?: AuthenticatedKey;
  /** Set when the response was replayed from the idempotency store. */
  idempotentReplay?: boolean;
}

export function newRequestId(): string {
  return `req_${pooledRandom(12, 'base64url')}`;
}

/** Accept a caller's request id only when it is short and harmless; otherwise mint one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && /^[A-Za-z0-9._:-]{8,128}$/.test(value) ? value : newRequestId();
}
