import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayUnique,
  IsArray,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { PageQueryDto, ProfileBodyDto } from '@/common/pagination/pagination';
import { PERMISSIONS } from '@/common/auth/permissions';

export class CreateApiKeyDto extends ProfileBodyDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  /** Permissions of the new key; a subset of the creating key's. Defaults to the creator's. */
  @ApiPropertyOptional({ type: [String], enum: ['*', ...PERMISSIONS] })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsString({ each: true })
  permissions?: string[];

  /** Restrict the key to these profiles (null or absent = the creator's scope). */
  @IsOptional()
  @IsArray()
  @IsUUID('all', { each: true, message: 'profileIds must contain profile ids' })
  profileIds?: string[];

  /** Restrict the key to these connected accounts. */
  @IsOptional()
  @IsArray()
  @IsUUID('all', { each: true, message: 'accountIds must contain account ids' })
  accountIds?: string[];

  /** The key's home profile; defaults to the profile this request resolves to. */
  @IsOptional()
  @IsUUID('all', { message: 'homeProfileId must be a profile id' })
  homeProfileId?: string;

  /** Owner: only the creating key's own owner (the default); the operator CLI makes keys for others. */
  @IsOptional()
  @IsUUID('all', { message: 'ownerUserId must be a user id' })
  ownerUserId?: string;

  /** ISO 8601 expiry; not later than the creating key's (inherited when omitted). */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsString({ message: 'expiresAt must be an ISO 8601 date-time' })
  expiresAt?: string;

  /** Daily post cap, reset at midnight UTC; at most the creating key's (inherited when omitted). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  maxPostsPerDay?: number;

  /** Requests per rolling minute; at most the creating key's (inherited when omitted). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100_000)
  rateLimitPerMinute?: number;

  /** Requests per rolling hour; at most the creating key's (inherited when omitted). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  rateLimitPerHour?: number;
}

export class ListApiKeysQueryDto extends PageQueryDto {}

export class ApiKeyDto {
  id: string;
  name: string;
  /** The first characters of the key, to recognise it. */
  prefix: string;
  permissions: string[];
  profileIds: string[] | null;
  accountIds: string[] | null;
  homeProfileId: string;
  ownerUserId: string | null;
  expiresAt: string | null;
  maxPostsPerDay: number | null;
  rateLimitPerMinute: number;
  rateLimitPerHour: number;
  lastUsedAt: string | null;
  revokedAt: string | null;
  createdAt: string;
}

export class CreatedApiKeyDto {
  apiKey: ApiKeyDto;
  /** The key itself (`svc_live_…`), shown this once. */
  secret: string;
}

export class ApiKeyListDto {
  apiKeys: ApiKeyDto[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

export class RevokedApiKeyDto {
  id: string;
  revoked: boolean;
  revokedAt: string;
}
