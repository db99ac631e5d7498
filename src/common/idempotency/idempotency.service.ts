import { createHash } from 'node:crypto';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { ApiError } from '../errors/api-error';
import { QueueService } from '../queue/queue.service';
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

export type Claim = { kind: 'run'; id: string } | { kind: 'replay'; status: number; body: unknown };

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

@Injectable()
export class IdempotencyService implements OnModuleInit {
  constructor(
    @InjectRepository(IdempotencyKeyEntity) private readonly repo: Repository<IdempotencyKeyEntity>,
    private readonly queues: QueueService,
  ) {}

  onModuleInit(): void {
    this.queues.handle('purge-idempotency-keys', async () => this.repo.delete({ expiresAt: LessThan(new Date()) }));
    this.queues.every('purge-idempotency-keys', 3600 * 1000);
  }

  hashRequest(method: string, path: string, query: unknown, body: unknown): string {
    return createHash('sha256')
      .update(JSON.stringify(stable({ method, path, query: query ?? {}, body: body ?? null })))
      .digest('hex');
  }

  /** Claims the key for this request, or says to replay, or throws 409. */
  async claim(scope: IdempotencyScope, requestHash: string): Promise<Claim> {
    for (let i = 0; i < 3; i++) {
      const inserted: { id: string }[] = await this.repo.query(
        `INSERT INTO idempotency_keys (api_key_id, key, method, path, request_hash, locked_until, expires_at)
         VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond', now() + $7 * interval '1 millisecond')
         ON CONFLICT (api_key_id, method, path, key) DO NOTHING RETURNING id`,
        [scope.apiKeyId, scope.key, scope.method, scope.path, requestHash, LOCK_MS, TTL_MS],
      );
      if (inserted[0]) return { kind: 'run', id: inserted[0].id };
      const existing = await this.repo.findOne({ where: { apiKeyId: scope.apiKeyId, method: scope.method, path: scope.path, key: scope.key } });
      if (!existing) continue; // released meanwhile: try to claim again
      if (existing.expiresAt.getTime() < Date.now()) {
        await this.repo.delete({ id: existing.id, expiresAt: existing.expiresAt });
        continue;
      }
      if (existing.requestHash !== requestHash) throw new ApiError('idempotency_key_reused');
      if (existing.responseStatus !== null) return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
      const lockedUntil = existing.lockedUntil?.getTime() ?? 0;
      if (lockedUntil > Date.now()) {
        const retryAfter = Math.max(1, Math.ceil((lockedUntil - Date.now()) / 1000 / 10));
        throw new ApiError('idempotency_key_in_use', undefined, undefined, { 'Retry-After': String(retryAfter) });
      }
      // The request that held it died: take over atomically.
      const taken = await this.repo
        .createQueryBuilder()
        .update()
        .set({ lockedUntil: () => `now() + interval '${LOCK_MS} milliseconds'` })
        .where('id = :id AND response_status IS NULL AND locked_until = :old', { id: existing.id, old: existing.lockedUntil })
        .execute();
      if (taken.affected) return { kind: 'run', id: existing.id };
    }
    throw new ApiError('idempotency_key_in_use', undefined, undefined, { 'Retry-After': '1' });
  }

  async complete(id: string, status: number, body: unknown): Promise<void> {
    await this.repo.update({ id }, { responseStatus: status, responseBody: body as object, lockedUntil: null });
  }

  async release(id: string): Promise<void> {
    await this.repo.delete({ id });
  }
}
