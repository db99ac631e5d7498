import { Injectable } from '@nestjs/common';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import { CommentsSyncService } from '../comments-sync.service';

/** Periodic: reads new comments of recently published posts from the networks. */
@Injectable()
export class SyncCommentsJob {
  constructor(private readonly sync: CommentsSyncService) {}

  @JobHandler('sync-comments')
  onSyncComments(): Promise<unknown> {
    return this.sync.syncAll();
  }
}
