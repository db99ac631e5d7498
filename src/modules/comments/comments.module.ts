import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { PostsModule } from '../posts/posts.module';
import { CommentsSyncService } from './comments-sync.service';
import { CommentsController } from './comments.controller';
import { CommentsService } from './comments.service';
import { CommentEntity } from './entities/comment.entity';
import { SyncCommentsJob } from './jobs/sync-comments.job';

@Module({
  imports: [TypeOrmModule.forFeature([CommentEntity]), AccountsModule, PostsModule],
  controllers: [CommentsController],
  providers: [CommentsService, CommentsSyncService, SyncCommentsJob],
  exports: [CommentsSyncService],
})
export class CommentsModule {}
