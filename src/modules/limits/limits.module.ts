import { Module } from '@nestjs/common';
import { AccountsModule } from '@/modules/accounts/accounts.module';
import { PostsModule } from '@/modules/posts/posts.module';
import { AccountLimitsController } from './account-limits.controller';
import { AccountLimitsService } from './account-limits.service';

/** Network caps known before they bite: GET /v1/accounts/{id}/limits. */
@Module({
  imports: [AccountsModule, PostsModule],
  controllers: [AccountLimitsController],
  providers: [AccountLimitsService],
})
export class LimitsModule {}
