import { ApiProperty } from '@nestjs/swagger';
import { PLATFORM_NAMES } from '@/modules/networks/platform-name';

/** One publishing cap of the account's network and how much of it is used. */
export class AccountLimitDto {
  /** The cap, e.g. `posts_per_24h` (Instagram, Threads), `posts_per_day` (TikTok, LinkedIn), `uploads_per_day` (YouTube). */
  @ApiProperty({ example: 'posts_per_24h' })
  name: string;
  /** `rolling_24h`: the last 24 hours; `day_utc` / `day_pacific`: the calendar day, reset at midnight UTC / Pacific time. */
  @ApiProperty({ enum: ['rolling_24h', 'day_utc', 'day_pacific'] })
  window: string;
  @ApiProperty({ example: 100 })
  limit: number;
  @ApiProperty({ example: 3 })
  used: number;
  /** When room frees up: the next midnight of a calendar window; in a rolling one, when the oldest post counted leaves it (null when it counts none). */
  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T09:12:00.000Z' })
  resetsAt: string | null;
  /** `account`: this account's own; `app`: shared by every account of the network on this service (YouTube's per-project quota). */
  @ApiProperty({ enum: ['account', 'app'] })
  scope: string;
  /** `network`: the network's own figures (Instagram content_publishing_limit, Threads threads_publishing_limit, TikTok creator_info); `records`: our publish records. */
  @ApiProperty({ enum: ['network', 'records'] })
  source: string;
}

/** 200 of GET /v1/accounts/{id}/limits. */
export class AccountLimitsDto {
  accountId: string;
  @ApiProperty({ enum: PLATFORM_NAMES })
  platform: string;
  /** Empty for a network that documents no publishing cap for what this service publishes (Facebook). */
  limits: AccountLimitDto[];
}
