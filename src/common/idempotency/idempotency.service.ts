import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { SecretBox } from '../crypto/secret-box';
import { ApiError } from '../errors/api-error';
import { IdempotencyKeyEntity } from './idempotency-key.entity';

const TTL_MS = 24 * 3600 * 1000;
/** How long a running request holds its key before another may take over (a crashed process). */
const LOCK_MS = 60 * 1000;

export interface IdempotencyScope {
  apiKeyId: string;
  method: string;
  path: string;
  key: string;
}

export type Claim = { kind: 'run'; id: string } | { kind: 'replay'; status: number; body: unknown; rawBody?: string };

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((k) => [k, stable((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

const IN_USE_RETRY_AFTER_S = 1;

function replayOf(status: number, stored: unknown, box: SecretBox): Claim {
  if (typeof stored === 'string') {
    try {
      const text = box.open(stored);
      return { kind: 'replay', status, body: JSON.parse(text) as unknown, rawBody: text };
    } catch {
      // not sealed: a row written before responses were encrypted
    }
    try {
      return { kind: 'replay', status, body: JSON.parse(stored) as unknown, rawBody: stored };
    } catch {
      // not JSON text: a row written before bodies were stored verbatim
    }
  }
  return { kind: 'replay', status, body: stored };
}

@Injectable()
export class IdempotencyService {
  constructor(
    @InjectRepository(IdempotencyKeyEntity) private readonly repo: Repository<IdempotencyKeyEntity>,
    private readonly box: SecretBox,
  ) {}

  /** Deletes the keys past their expiry (the `purge-idempotency-keys` job). */
  purgeExpired(): Promise<unknown> {
    return this.repo.delete({ expiresAt: LessThan(new Date()) });
  }

  hashRequest(method: string, path: string, query: unknown, body: unknown): string {
    return createHash('sha256')
      .update(JSON.stringify(stable({ method, path, query: query ?? {}, body: body ?? null })))
      .digest('hex');
  }

  /**
   * Claims the key for this request, or says to replay, or throws 409. Expiry and lock times are
   * compared with the database clock in SQL (timestamptz has microseconds; a JS Date does not).
   */
  async claim(scope: IdempotencyScope, requestHash: string): Promise<Claim> {
    const params = [scope.apiKeyId, scope.key, scope.method, scope.path];
    for (let i = 0; i < 3; i++) {
      const inserted: { id: string }[] = await this.repo.query(
        `INSERT INTO idempotency_keys (api_key_id, key, method, path, request_hash, locked_until, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond', now() + $7 * interval '1 millisecond')
         ON CONFLICT (api_key_id, method, path, key) DO NOTHING RETURNING id`,
        [...params, requestHash, LOCK_MS, TTL_MS],
      );
      if (inserted[0]) return { kind: 'run', id: inserted[0].id };
      const [existing] = await this.repo.query<
        {
          id: string;
          request_hash: string;
          response_status: number | null;
          response_body: unknown;
          expired: boolean;
          locked: boolean;
        }[]
      >(
        `SELECT id, request_hash, response_status, response_body, expires_at <= now() AS expired, coalesce(locked_until > now(), false) AS locked
         FROM idempotency_keys WHERE api_key_id = $1 AND key = $2 AND method = $3 AND path = $4`,
        params,
      );
      if (!existing) continue; // released meanwhile: try to claim again
      if (existing.expired) {
        await this.repo.query('DELETE FROM idempotency_keys WHERE id = $1 AND expires_at <= now()', [existing.id]);
        continue;
      }
      if (existing.request_hash !== requestHash) throw new ApiError('idempotency_key_reused');
      if (existing.response_status !== null)
        return replayOf(existing.response_status, existing.response_body, this.box);
      // Most writes finish within a second; the client polls rather than waiting out the lock.
      if (existing.locked)
        throw new ApiError('idempotency_key_in_use', undefined, undefined, {
          'Retry-After': String(IN_USE_RETRY_AFTER_S),
        });
      // The request that held it died (its lock lapsed): take over atomically; one taker wins.
      const taken = await this.repo.query<[{ id: string }[], number] | { id: string }[]>(
        `UPDATE idempotency_keys SET locked_until = now() + $2 * interval '1 millisecond'
         WHERE id = $1 AND response_status IS NULL AND (locked_until IS NULL OR locked_until <= now()) RETURNING id`,
        [existing.id, LOCK_MS],
      );
      const rows = Array.isArray(taken[0]) ? (taken[0] as { id: string }[]) : (taken as { id: string }[]);
      if (rows.length) return { kind: 'run', id: existing.id };
    }
    throw new ApiError('idempotency_key_in_use', undefined, undefined, { 'Retry-After': String(IN_USE_RETRY_AFTER_S) });
  }

  /**
   * Stores the response as sealed JSON text (a jsonb string): a replay repeats its exact bytes,
   * and once-shown secrets in responses (new API keys, webhook secrets) are not kept in clear.
   */
  async complete(id: string, status: number, body: unknown): Promise<void> {
    const sealed = this.box.seal(JSON.stringify(body ?? null));
    await this.repo.update({ id }, { responseStatus: status, responseBody: sealed, lockedUntil: null });
  }

  async release(id: string): Promise<void> {
    await this.repo.delete({ id });
  }
}
