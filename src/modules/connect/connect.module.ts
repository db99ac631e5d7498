import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { ProfilesModule } from '../profiles/profiles.module';
import { ConnectFlowService } from './connect-flow.service';
import { ConnectPagesController } from './connect-pages.controller';
import { ConnectSessionsService } from './connect-sessions.service';
import { ConnectController } from './connect.controller';
import { ConnectSessionEntity } from './entities/connect-session.entity';
import { ExpireConnectSessionsJob } from './jobs/expire-connect-sessions.job';

@Module({
  imports: [TypeOrmModule.forFeature([ConnectSessionEntity]), AccountsModule, ProfilesModule],
  controllers: [ConnectController, ConnectPagesController],
  providers: [ConnectSessionsService, ConnectFlowService, ExpireConnectSessionsJob],
  exports: [ConnectSessionsService],
})
export class ConnectModule {}
