import { Module } from '@nestjs/common';
import { AccountsModule } from '@/modules/accounts/accounts.module';
import { PolicyModule } from '@/modules/policy/policy.module';
import { PostsModule } from '../posts.module';
import { FirstCommentPoster } from './first-comment';
import { NetworkConcurrency } from './network-concurrency';
import { PostLocks } from './post-lock';
import { PublishPostProcessor } from './publish-post.processor';
import { ResumeStuckPosts } from './resume-stuck-posts';
import { TargetPublisher } from './target-publisher';
import { PublishPostJob } from './jobs/publish-post.job';
import { ResumeStuckPostsJob } from './jobs/resume-stuck-posts.job';

/**
 * The publishing worker: the `publish-post` processor, per-network concurrency and the
 * `resume-stuck-posts` sweep. Handlers register in every role; they run in the worker role.
 */
@Module({
  imports: [AccountsModule, PolicyModule, PostsModule],
  providers: [
    PostLocks,
    NetworkConcurrency,
    TargetPublisher,
    FirstCommentPoster,
    PublishPostProcessor,
    ResumeStuckPosts,
    PublishPostJob,
    ResumeStuckPostsJob,
  ],
  exports: [PublishPostProcessor, NetworkConcurrency, TargetPublisher, FirstCommentPoster, ResumeStuckPosts],
})
export class PublishingModule {}
