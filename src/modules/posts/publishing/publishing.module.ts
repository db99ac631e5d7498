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
  ],
  exports: [PublishPostProcessor, NetworkConcurrency, TargetPublisher, FirstCommentPoster, ResumeStuckPosts],
})
export class PublishingModule {}
