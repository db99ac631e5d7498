import { Injectable } from '@nestjs/common';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import { AccountCredentialsService } from '../account-credentials.service';

/** Periodic: refreshes account tokens that expire soon. */
@Injectable()
export class RefreshTokensJob {
  constructor(private readonly credentials: AccountCredentialsService) {}

  @JobHandler('refresh-tokens')
  onRefreshTokens(): Promise<unknown> {
    return this.credentials.refreshDue();
  }
}
