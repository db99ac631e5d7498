import { IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { PageQueryDto, ProfileBodyDto } from '@/common/pagination/pagination';

export class CreateProfileDto extends ProfileBodyDto {
  /** Display name. */
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  /** Your own identifier for this profile (e.g. your customer id). */
  @IsOptional()
  @IsString()
  @MaxLength(200)
  externalId?: string;
}

export class UpdateProfileDto extends ProfileBodyDto {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  externalId?: string;
}

export class ListProfilesQueryDto extends PageQueryDto {}

export class ProfileDto {
  id: string;
  name: string;
  description: string | null;
  externalId: string | null;
  createdAt: string;
  updatedAt: string;
}

export class ProfileResponseDto {
  profile: ProfileDto;
}

export class ProfileListDto {
  profiles: ProfileDto[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

export class DeletedProfileDto {
  id: string;
  deleted: boolean;
}
