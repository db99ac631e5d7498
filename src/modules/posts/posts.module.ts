import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { PolicyModule } from '../policy/policy.module';
import { PostCountEntity, PostPlatformCountEntity } from './entities/post-count.entity';
import { PostHistoryEntity } from './entities/post-history.entity';
import { PostTargetEntity } from './entities/post-target.entity';
import { PostEntity } from './entities/post.entity';
import { PostSchedulerProcessor } from './jobs/post-scheduler.processor';
import { PostActionsController } from './post-actions.controller';
import { PostsController } from './posts.controller';
import { PostFlow } from './services/post-flow.service';
import { PostTransitions } from './services/post-transitions';
import { PostValidationService } from './services/post-validation.service';
import { PostsApprovalService } from './services/posts-approval.service';
import { PostsBulkService } from './services/posts-bulk.service';
import { PostingQueueService } from './queue/posting-queue.service';
import { QueueController } from './queue/queue.controller';
import { PostsCreateService } from './services/posts-create.service';
import { PostsLifecycleService } from './services/posts-lifecycle.service';
import { PostsQueueService } from './services/posts-queue.service';
import { PostsReadService } from './services/posts-read.service';
import { PostsRepository } from './services/posts.repository';
import { PublishingCapsService } from './limits/publishing-caps.service';

/**
 * Posts: creation (three request shapes), reads, the state machine (edit, cancel, publish,
 * retry, approval) and scheduling. The publishing worker (`publish-post`) builds on the
 * exported PostTransitions, PostsQueueService and PostsRepository.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([
      PostEntity,
      PostTargetEntity,
      PostHistoryEntity,
      PostCountEntity,
      PostPlatformCountEntity,
    ]),
    AccountsModule,
    PolicyModule,
  ],
  controllers: [PostsController, PostActionsController, QueueController],
  providers: [
    PostTransitions,
    PostsRepository,
    PostsQueueService,
    PostValidationService,
    PostFlow,
    PostsCreateService,
    PostsBulkService,
    PostingQueueService,
    PostsReadService,
    PostsLifecycleService,
    PostsApprovalService,
    PostSchedulerProcessor,
    PublishingCapsService,
  ],
  exports: [
    PostTransitions,
    PostsRepository,
    PostsQueueService,
    PostValidationService,
    PostFlow,
    PostsCreateService,
    PostsReadService,
    PostsLifecycleService,
    PostsApprovalService,
    PublishingCapsService,
  ],
})
export class PostsModule {}
