import { Body, Controller, Delete, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import {
  CreateProfileDto,
  DeletedProfileDto,
  ListProfilesQueryDto,
  ProfileListDto,
  ProfileResponseDto,
  UpdateProfileDto,
} from './dto/profile.dto';
import { ProfilesService } from './profiles.service';

@ApiTags('Profiles')
@Controller('v1')
export class ProfilesController {
  constructor(private readonly profiles: ProfilesService) {}

  /** List the profiles this key can reach. */
  @Get('profiles')
  @RequirePermission('profiles:read', { errors: ['invalid_request'] })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListProfilesQueryDto): Promise<ProfileListDto> {
    return this.profiles.list(auth, query);
  }

  /** Create a profile (plan quota applies). */
  @Post('profiles')
  @RequirePermission('profiles:write', {
    errors: ['invalid_request', 'plan_limit', 'trial_expired', 'idempotency_key_reused', 'idempotency_key_in_use'],
  })
  create(@CurrentAuth() auth: AuthContext, @Body() dto: CreateProfileDto): Promise<ProfileResponseDto> {
    return this.profiles.create(auth, dto);
  }

  /** The profile this request resolves to (`profileId`, else the key's home profile). */
  @Get('profile')
  @RequirePermission('profiles:read')
  current(@CurrentAuth() auth: AuthContext): Promise<ProfileResponseDto> {
    return this.profiles.current(auth);
  }

  /** Get a profile of this workspace (404 for ids of other workspaces). */
  @Get('profiles/:id')
  @RequirePermission('profiles:read', { errors: ['not_found'] })
  get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<ProfileResponseDto> {
    return this.profiles.get(auth, id);
  }

  /** Update a profile's name, description or external id; omitted fields keep their value. */
  @Patch('profiles/:id')
  @RequirePermission('profiles:write', {
    errors: ['not_found', 'invalid_request', 'trial_expired', 'idempotency_key_reused', 'idempotency_key_in_use'],
  })
  update(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: UpdateProfileDto,
  ): Promise<ProfileResponseDto> {
    return this.profiles.update(auth, id, dto);
  }

  /** Delete a profile; refused with 409 while accounts remain connected. */
  @Delete('profiles/:id')
  @RequirePermission('profiles:write', {
    errors: [
      'not_found',
      'profile_has_connected_accounts',
      'trial_expired',
      'idempotency_key_reused',
      'idempotency_key_in_use',
    ],
  })
  remove(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<DeletedProfileDto> {
    return this.profiles.remove(auth, id);
  }
}
