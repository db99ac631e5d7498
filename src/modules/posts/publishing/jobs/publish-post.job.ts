import { Injectable } from '@nestjs/common';
import { JobHandler } from '@/common/queue/job-handler.decorator';
import type { JobPayloads } from '@/common/queue/jobs';
import { PublishPostProcessor } from '../publish-post.processor';

/** The `publish-post` job and its delayed `check-publish` follow-ups: both run the post's publishing (PublishPostProcessor). */
@Injectable()
export class PublishPostJob {
  constructor(private readonly publisher: PublishPostProcessor) {}

  @JobHandler('publish-post')
  onPublishPost({ postId }: JobPayloads['publish-post']): Promise<unknown> {
    return this.publisher.run(postId);
  }

  @JobHandler('check-publish')
  onCheckPublish({ postId }: JobPayloads['check-publish']): Promise<unknown> {
    return this.publisher.run(postId);
  }
}
