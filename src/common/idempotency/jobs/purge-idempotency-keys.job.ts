import { Injectable } from '@nestjs/common';
import { JobHandler } from '../../queue/job-handler.decorator';
import { IdempotencyService } from '../idempotency.service';

/** Periodic: deletes stored idempotency keys past their expiry. */
@Injectable()
export class PurgeIdempotencyKeysJob {
  constructor(private readonly idempotency: IdempotencyService) {}

  @JobHandler('purge-idempotency-keys')
  onPurgeIdempotencyKeys(): Promise<unknown> {
    return this.idempotency.purgeExpired();
  }
}
