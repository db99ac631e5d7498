import { Type } from 'class-transformer';
import {
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
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

/**
 * What the hosted connect and upload pages show for this profile. A merge patch: a field left out
 * keeps its value, `null` clears it (and `branding: null` clears them all).
 */
export class ProfileBrandingInputDto {
  /** The name people see ("Acme wants to publish to your Facebook Pages"), 1 to 80 characters. */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MinLength(1)
  @MaxLength(80)
  displayName?: string | null;

  /**
   * An https URL of a PNG, JPEG, WebP or GIF logo of at most 512 KB (SVG is refused: it can carry
   * scripts). Fetched once when set, through the SSRF-safe agent, and served from this service.
   */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(2000)
  @Matches(/^https?:\/\/[^\s]+$/i, { message: 'logoUrl must be an https URL' })
  logoUrl?: string | null;

  /** Accent colour of buttons and the header rule, `#rrggbb`. */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @Matches(/^#[0-9a-fA-F]{6}$/, { message: 'accentColor must be a colour written #rrggbb' })
  accentColor?: string | null;

  /** Where a person asks for help: an https URL or a mailto: address. */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsString()
  @MaxLength(2000)
  @Matches(/^(https:\/\/[^\s]+|mailto:[^\s]+@[^\s]+)$/i, {
    message: 'supportUrl must be an https URL or a mailto: address',
  })
  supportUrl?: string | null;
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

  /** Hosted pages' branding (merge patch; `null` clears it). */
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsObject({ message: 'branding must be an object' })
  @ValidateNested()
  @Type(() => ProfileBrandingInputDto)
  branding?: ProfileBrandingInputDto | null;
}

export class ListProfilesQueryDto extends PageQueryDto {}

/** A profile's branding as hosted pages show it; every field null until set. */
export class ProfileBrandingDto {
  displayName: string | null;
  /** The URL the logo was fetched from. */
  logoUrl: string | null;
  accentColor: string | null;
  supportUrl: string | null;
  /** This service's copy of the logo, as the hosted pages load it (`/branding/{profileId}/logo?v=…`). */
  hostedLogoUrl: string | null;
}

export class ProfileDto {
  id: string;
  name: string;
  description: string | null;
  externalId: string | null;
  branding: ProfileBrandingDto;
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
