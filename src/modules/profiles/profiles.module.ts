import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule } from '../accounts/accounts.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { BrandingLogoController } from './branding-logo.controller';
import { ProfileBrandingService } from './profile-branding.service';
import { ProfileEntity } from './profile.entity';
import { ProfilesController } from './profiles.controller';
import { ProfilesService } from './profiles.service';

@Module({
  imports: [TypeOrmModule.forFeature([ProfileEntity]), AccountsModule, WorkspacesModule],
  controllers: [ProfilesController, BrandingLogoController],
  providers: [ProfilesService, ProfileBrandingService],
  exports: [ProfilesService, ProfileBrandingService],
})
export class ProfilesModule {}
