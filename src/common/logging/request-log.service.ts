import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { RequestLogEntity } from './request-log.entity';

export type RequestLogRow = Omit<RequestLogEntity, 'id'>;

const FLUSH_MS = 1000;
const MAX_BATCH = 500;
const MAX_BUFFER = 20000;

/**
 * Request logs are buffered in memory and written in batches off the request path. A crash can
 * lose at most the last second of log rows (they are diagnostics, not state); shutdown flushes.
 */
@Injectable()
export class RequestLogService implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('RequestLog');
  private buffer: RequestLogRow[] = [];
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(@InjectRepository(RequestLogEntity) private readonly repo: Repository<RequestLogEntity>) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  push(row: RequestLogRow): void {
    if (this.buffer.length >= MAX_BUFFER) return; // shed load rather than grow without bound
    this.buffer.push(row);
    if (this.buffer.length >= MAX_BATCH) void this.flush();
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      while (this.buffer.length) {
        const batch = this.buffer.splice(0, MAX_BATCH);
        await this.insert(batch).catch((err: Error) => this.logger.warn({ err: err.message }, 'Dropped request logs'));
      }
    });
    return this.flushing;
  }

  /** One statement per batch, the columns as arrays: no per-row query building. */
  private async insert(batch: RequestLogRow[]): Promise<void> {
    const col = <K extends keyof RequestLogRow>(k: K): RequestLogRow[K][] => batch.map((r) => r[k]);
    await this.repo.query(
      `INSERT INTO request_logs (workspace_id, profile_id, key_id, request_id, method, path, status, duration_ms, created_at)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[], $9::timestamptz[])`,
      [
        col('workspaceId'),
        col('profileId'),
        col('keyId'),
        col('requestId'),
        col('method'),
        col('path'),
        col('status'),
        col('durationMs'),
        col('createdAt'),
      ],
    );
  }

  /** Written before the database closes (onApplicationShutdown hooks run after every "before" one). */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
  }
}
