import { Injectable } from '@nestjs/common';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import { ResumeStuckPosts } from '../resume-stuck-posts';

/** Periodic: re-enqueues posts stuck in `processing` (ResumeStuckPosts). */
@Injectable()
export class ResumeStuckPostsJob {
  constructor(private readonly resume: ResumeStuckPosts) {}

  @JobHandler('resume-stuck-posts')
  onResumeStuckPosts(): Promise<unknown> {
    return this.resume.sweep();
  }
}
