import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUrl, MaxLength } from 'class-validator';
import { ProfileBodyDto, ProfileQueryDto } from '@/common/pagination/pagination';
import { AccountDto } from '@/modules/accounts/dto/account.dto';
import { PLATFORM_NAMES, PlatformName } from '@/modules/networks/platform-name';
import type { ConnectSessionStatus } from '../entities/connect-session.entity';

const PLATFORM_MESSAGE = `platform must be one of ${PLATFORM_NAMES.join(', ')}`;
const URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const URL_MESSAGE = 'redirectUrl must be an http(s) URL';

export class CreateConnectSessionDto extends ProfileBodyDto {
  @ApiProperty({ enum: PLATFORM_NAMES })
  @IsIn(PLATFORM_NAMES, { message: PLATFORM_MESSAGE })
  platform: PlatformName;

  /** Where to send the person when the flow ends, with `?session=<id>&status=completed|failed`. Default: a hosted page. */
  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: URL_MESSAGE })
  @MaxLength(2000)
  redirectUrl?: string;
}

export class StartConnectQueryDto extends ProfileQueryDto {
  /** Where to send the person when the flow ends, with `?session=<id>&status=completed|failed`. Default: a hosted page. */
  @IsOptional()
  @IsUrl(URL_OPTIONS, { message: URL_MESSAGE })
  @MaxLength(2000)
  redirectUrl?: string;
}

export class ConnectPlatformParamDto {
  @ApiProperty({ enum: PLATFORM_NAMES })
  @IsIn(PLATFORM_NAMES, { message: PLATFORM_MESSAGE })
  platform: PlatformName;
}

export class ConnectSessionErrorDto {
  /** e.g. `access_denied` (consent refused), `no_accounts`, `exchange_failed`, `expired`. */
  code: string;
  message: string;
}

export class ConnectSessionDto {
  id: string;
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: PlatformName;
  profileId: string;
  /** `pending` until the person finishes; `expired` one hour after creation if never finished. */
  @ApiProperty({ enum: ['pending', 'completed', 'failed', 'expired'] })
  status: ConnectSessionStatus;
  /** The hosted page to send the person to (only while `pending`). */
  url: string | null;
  redirectUrl: string | null;
  expiresAt: string;
  createdAt: string;
  /** The accounts connected by this session (when `completed`). */
  accounts: AccountDto[];
  /** Why the session failed (when `failed` or `expired`). */
  error: ConnectSessionErrorDto | null;
}
