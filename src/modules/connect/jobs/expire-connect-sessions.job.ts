import { Injectable } from '@nestjs/common';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import { ConnectSessionsService } from '../connect-sessions.service';

/** Periodic: expires connect sessions past their deadline. */
@Injectable()
export class ExpireConnectSessionsJob {
  constructor(private readonly sessions: ConnectSessionsService) {}

  @JobHandler('expire-connect-sessions')
  onExpireConnectSessions(): Promise<unknown> {
    return this.sessions.expireDue();
  }
}
