import { Global, Injectable, Module } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { PROFILE_LOOKUP, ProfileLookup } from '@/common/auth/auth-lookup';
import { ProfileEntity } from './profile.entity';

@Injectable()
export class LiveProfileLookup implements ProfileLookup {
  constructor(@InjectRepository(ProfileEntity) private readonly profiles: Repository<ProfileEntity>) {}

  isLive(workspaceId: string, profileId: string): Promise<boolean> {
    return this.profiles.exists({ where: { id: profileId, workspaceId, deletedAt: IsNull() } });
  }
}

/** Provides PROFILE_LOOKUP to the (global) auth module. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ProfileEntity])],
  providers: [{ provide: PROFILE_LOOKUP, useClass: LiveProfileLookup }],
  exports: [PROFILE_LOOKUP],
})
export class ProfileLookupModule {}
