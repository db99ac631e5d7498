import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { Public } from '@/common/auth/decorators';
import { ApiError } from '@/common/errors/api-error';
import { ApiErrorResponses } from '@/common/errors/api-error-responses.decorator';
import { ERROR_CATALOGUE } from '@/common/errors/error-catalogue';
import { InjectRedis } from '@/common/redis/redis.module';

export class HealthDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
}

export class ReadinessChecksDto {
  @ApiProperty({ enum: ['ok', 'down'] })
  postgres: string;
  @ApiProperty({ enum: ['ok', 'down'] })
  redis: string;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ok'] })
  status: 'ok';
  checks: ReadinessChecksDto;
}

@ApiTags('Health')
@Controller()
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    @InjectRedis() private readonly redis: Redis,
  ) {}

  /** Liveness: the process answers. */
  @Get('health')
  @Public()
  live(): HealthDto {
    return { status: 'ok' };
  }

  /** Readiness: PostgreSQL and Redis answer; 503 service_unavailable otherwise. */
  @Get('health/ready')
  @Public()
  @ApiErrorResponses('service_unavailable')
  async ready(): Promise<ReadinessDto> {
    const [db, redis] = await Promise.allSettled([
      withTimeout(this.dataSource.query('SELECT 1'), 2000),
      withTimeout(this.redis.ping(), 2000),
    ]);
    const checks = {
      postgres: db.status === 'fulfilled' ? 'ok' : 'down',
      redis: redis.status === 'fulfilled' ? 'ok' : 'down',
    };
    if (checks.postgres !== 'ok' || checks.redis !== 'ok') {
      throw new ApiError(
        'service_unavailable',
        `Not ready: ${Object.entries(checks)
          .filter(([, v]) => v !== 'ok')
          .map(([k]) => k)
          .join(', ')} unreachable.`,
      );
    }
    return { status: 'ok', checks };
  }

  /** Human-readable catalogue of error codes; `error.docsUrl` points at its anchors. */
  @Get('errors')
  @Public()
  @ApiExcludeEndpoint()
  @Header('Content-Type', 'text/html; charset=utf-8')
  errors(): string {
    const rows = Object.entries(ERROR_CATALOGUE)
      .map(
        ([code, e]) =>
          `<tr id="${code}"><td><code>${code}</code></td><td>${e.status}</td><td>${escape(e.description)}</td><td>${e.retryable ? 'yes' : 'no'}</td></tr>`,
      )
      .join('\n');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error codes</title><style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}:target{background:#fff5c2}</style></head><body><h1>Error codes</h1><p>Every failure uses one envelope: <code>{ error: { code, message, docsUrl, requestId, details? }, message }</code>. Branch on <code>code</code>, never on <code>message</code>. Retry only the codes marked retryable, with the same Idempotency-Key.</p><table><thead><tr><th>Code</th><th>Status</th><th>When</th><th>Retry</th></tr></thead><tbody>${rows}</tbody></table></body></html>`;
  }
}

/** Rejects after `ms` unless `p` settles first; the timer never outlives the check. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), ms);
    timer.unref();
  });
  return Promise.race([p, expiry]).finally(() => clearTimeout(timer));
}

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
