import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { PolicyController } from './policy.controller';
import { PolicyEntity } from './policy.entity';
import { PolicyService } from './policy.service';

@Module({
  imports: [TypeOrmModule.forFeature([PolicyEntity]), WorkspacesModule],
  controllers: [PolicyController],
  providers: [PolicyService],
  exports: [PolicyService],
})
export class PolicyModule {}
