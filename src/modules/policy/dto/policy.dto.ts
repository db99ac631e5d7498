import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { ProfileBodyDto } from '@/common/pagination/pagination';
import { PLATFORM_NAMES } from '@/modules/networks/platform-name';

/** Fields left out keep their current value. */
export class UpdatePolicyDto extends ProfileBodyDto {
  /** Platforms posts may target; null = all. */
  @ApiPropertyOptional({ type: [String], enum: PLATFORM_NAMES, nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(PLATFORM_NAMES, { each: true, message: `allowedPlatforms must contain only ${PLATFORM_NAMES.join(', ')}` })
  allowedPlatforms?: string[] | null;

  /** Every post needs an approver's decision before publishing. */
  @IsOptional()
  @IsBoolean()
  requireApproval?: boolean;

  /** Users (of this workspace) who may approve. */
  @IsOptional()
  @IsArray()
  @IsUUID('all', { each: true, message: 'approverUserIds must contain user ids' })
  approverUserIds?: string[];

  /** Posts containing one of these terms (case-insensitive) are refused with invalid_request. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  blockedTerms?: string[];

  /** How far ahead posts may be scheduled, in days; null = no limit. */
  @ApiPropertyOptional({ type: 'integer', nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3650)
  maxScheduleDaysAhead?: number | null;
}

export class PolicyDto {
  profileId: string;
  allowedPlatforms: string[] | null;
  requireApproval: boolean;
  approverUserIds: string[];
  blockedTerms: string[];
  maxScheduleDaysAhead: number | null;
  updatedAt: string | null;
}

export class PolicyResponseDto {
  policy: PolicyDto;
}
