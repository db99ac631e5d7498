import { Module } from '@nestjs/common';
import { UsersService } from './users.service';
import { WorkspacesService } from './workspaces.service';

@Module({ providers: [UsersService, WorkspacesService], exports: [UsersService, WorkspacesService] })
export class WorkspacesModule {}
