import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional } from 'class-validator';
import { ProfileBodyDto, ProfileQueryDto } from '@/common/pagination/pagination';
import { PLATFORM_NAMES, PlatformName } from '@/modules/networks/platform-name';
import type { AccountStatus } from '../entities/social-account.entity';

export class ListAccountsQueryDto extends ProfileQueryDto {
  /** Only accounts of this network. */
  @ApiPropertyOptional({ enum: PLATFORM_NAMES })
  @IsOptional()
  @IsIn(PLATFORM_NAMES, { message: `platform must be one of ${PLATFORM_NAMES.join(', ')}` })
  platform?: PlatformName;
}

export class UpdateAccountDto extends ProfileBodyDto {
  /** Receive `comment.received` events for this account (facebook and instagram). */
  @IsOptional()
  @IsBoolean({ message: 'commentSync must be a boolean' })
  commentSync?: boolean;
}

/** A connected social account. Tokens never leave the service. */
export class AccountDto {
  /** Use as a target in `accountIds` (newer shape) or `targetIds` (older shape). */
  id: string;
  profileId: string;
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: PlatformName;
  /** The network's id of the page, organisation, channel or account. */
  platformAccountId: string;
  /** Display name (the older listing's `pageName`). */
  name: string;
  username: string | null;
  avatarUrl: string | null;
  /** `expired`: the network no longer accepts the token; reconnect the account. */
  @ApiProperty({ enum: ['active', 'expired', 'disconnected'] })
  status: AccountStatus;
  commentSync: boolean;
  connectedAt: string;
  /** When the current access token stops working; null when it does not expire. */
  tokenExpiresAt: string | null;
}

export class AccountListDto {
  accounts: AccountDto[];
}

export class AccountResponseDto {
  account: AccountDto;
}

/** An entry of the older `GET /v1/social-pages` listing. */
export class SocialPageDto {
  id: string;
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: PlatformName;
  platformPageId: string;
  pageName: string;
}

export class SocialPageListDto {
  pages: SocialPageDto[];
}
