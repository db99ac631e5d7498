import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountConnectionsService } from './account-connections.service';
import { AccountCredentialsService } from './account-credentials.service';
import { AccountSweepService } from './account-sweep.service';
import { AccountsController } from './accounts.controller';
import { AccountsService } from './accounts.service';
import { SocialAccountEntity } from './entities/social-account.entity';
import { RefreshTokensJob } from './jobs/refresh-tokens.job';

@Module({
  imports: [TypeOrmModule.forFeature([SocialAccountEntity])],
  controllers: [AccountsController],
  providers: [
    AccountsService,
    AccountConnectionsService,
    AccountCredentialsService,
    AccountSweepService,
    RefreshTokensJob,
  ],
  exports: [AccountsService, AccountConnectionsService, AccountCredentialsService, AccountSweepService],
})
export class AccountsModule {}
