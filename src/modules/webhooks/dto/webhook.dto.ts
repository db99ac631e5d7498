import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
} from 'class-validator';
import { PageQueryDto, ProfileBodyDto } from '@/common/pagination/pagination';
import { DELIVERY_STATUSES, DeliveryStatus } from '../entities/webhook-delivery.entity';
import { WEBHOOK_EVENT_TYPES, WILDCARD } from '../event-types';

const EVENT_ENTRIES = [...WEBHOOK_EVENT_TYPES, WILDCARD];
const URL_OPTIONS = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_tld: false,
  require_host: true,
};
const URL_MESSAGE = 'url must be an absolute https URL';
const EVENTS_MESSAGE = `events must contain event types (${WEBHOOK_EVENT_TYPES.join(', ')}) or the single entry '*'`;

export class CreateWebhookDto extends ProfileBodyDto {
  /** The receiver: an https URL that does not resolve to a private, loopback or link-local address. */
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_OPTIONS, { message: URL_MESSAGE })
  url: string;

  /** Event types to receive, or `['*']` for every type (including ones added later). */
  @ApiProperty({
    type: [String],
    enum: EVENT_ENTRIES,
    example: ['post.published', 'post.failed'],
  })
  @IsArray()
  @ArrayNotEmpty({ message: 'events must contain at least one event type' })
  @ArrayUnique({ message: 'events must not contain duplicates' })
  @ArrayMaxSize(EVENT_ENTRIES.length)
  @IsIn(EVENT_ENTRIES, { each: true, message: EVENTS_MESSAGE })
  events: string[];

  /** `profile` (default): events of the profile the subscription is created in; `account`: every profile of the workspace. */
  @ApiPropertyOptional({ enum: ['profile', 'account'], default: 'profile' })
  @IsOptional()
  @IsIn(['profile', 'account'], {
    message: "scope must be 'profile' or 'account'",
  })
  scope?: 'profile' | 'account';
}

export class UpdateWebhookDto extends ProfileBodyDto {
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsUrl(URL_OPTIONS, { message: URL_MESSAGE })
  url?: string;

  @ApiPropertyOptional({ type: [String], enum: EVENT_ENTRIES })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty({ message: 'events must contain at least one event type' })
  @ArrayUnique({ message: 'events must not contain duplicates' })
  @ArrayMaxSize(EVENT_ENTRIES.length)
  @IsIn(EVENT_ENTRIES, { each: true, message: EVENTS_MESSAGE })
  events?: string[];

  /** false pauses delivery: events occurring while paused are dropped, not queued. */
  @IsOptional()
  @IsBoolean({ message: 'isActive must be a boolean' })
  isActive?: boolean;
}

export class TestWebhookDto extends ProfileBodyDto {
  /** The event type to simulate. */
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES })
  @IsIn(WEBHOOK_EVENT_TYPES, {
    message: `eventType must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  })
  eventType: string;
}

export class ListWebhooksQueryDto extends PageQueryDto {}

export class ListDeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES, {
    message: `status must be one of ${DELIVERY_STATUSES.join(', ')}`,
  })
  status?: DeliveryStatus;
}

export class WebhookSubscriptionDto {
  id: string;
  /** The profile the subscription was created in. */
  profileId: string;
  url: string;
  events: string[];
  @ApiProperty({ enum: ['profile', 'account'] })
  scope: 'profile' | 'account';
  /** false = paused. */
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
}

export class WebhookResponseDto {
  subscription: WebhookSubscriptionDto;
}

export class CreatedWebhookDto {
  subscription: WebhookSubscriptionDto;
  /** The signing secret (`whsec_…`); shown this once. */
  secret: string;
}

export class WebhookSecretDto {
  /** The new signing secret; the previous one stopped verifying at once. */
  secret: string;
}

export class WebhookListDto {
  webhooks: WebhookSubscriptionDto[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

export class DeletedWebhookDto {
  id: string;
  deleted: boolean;
}

export class WebhookDeliveryDto {
  /** The envelope `id`: stable across attempts. */
  id: string;
  subscriptionId: string;
  /** The audit event behind it; null for test events. */
  eventId: string | null;
  type: string;
  @ApiProperty({ enum: DELIVERY_STATUSES })
  status: DeliveryStatus;
  /** Attempts made so far (the last `Service-Delivery-Attempt` sent). */
  attempts: number;
  /** HTTP status of the last response; null when none arrived. */
  responseCode: number | null;
  /** First 2000 bytes of the last response body. */
  responseBody: string | null;
  /** Why the last attempt failed (time-out, connection refused, non-2xx…). */
  error: string | null;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  /** The envelope's `createdAt` (when the event happened). */
  eventCreatedAt: string;
  /** The envelope's `data` as sent. */
  data: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export class WebhookDeliveryResponseDto {
  delivery: WebhookDeliveryDto;
}

export class WebhookDeliveryListDto {
  deliveries: WebhookDeliveryDto[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}
