import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { ProfileBodyDto, ProfileQueryDto, toInt } from '@/common/pagination/pagination';
import { QUEUE_DAYS, QueueDay } from './queue-slots';

export const MAX_QUEUE_SLOTS = 168;
export const MAX_NEXT_SLOTS = 50;

/** One weekly slot, local to the queue's time zone. */
export class QueueSlotDto {
  @ApiProperty({ enum: QUEUE_DAYS, example: 'mon' })
  @IsIn(QUEUE_DAYS, { message: `day must be one of ${QUEUE_DAYS.join(', ')}` })
  day: QueueDay;

  /** 24-hour local time, HH:MM. */
  @ApiProperty({ example: '09:30', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$' })
  @IsString()
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'time must be HH:MM (00:00 to 23:59)' })
  time: string;
}

/** PUT /v1/queue: replaces the profile's queue. */
export class PutQueueDto extends ProfileBodyDto {
  /** IANA time zone the slot times are in. */
  @ApiProperty({ example: 'Europe/Berlin' })
  @IsString()
  timezone: string;

  @ApiProperty({
    type: [QueueSlotDto],
    maxItems: MAX_QUEUE_SLOTS,
    example: [
      { day: 'mon', time: '09:00' },
      { day: 'wed', time: '17:30' },
    ],
  })
  @IsArray()
  @ArrayMaxSize(MAX_QUEUE_SLOTS)
  @ValidateNested({ each: true })
  @Type(() => QueueSlotDto)
  slots: QueueSlotDto[];
}

/** A profile's posting queue. */
export class QueueDto {
  @ApiProperty({ example: 'Europe/Berlin' })
  timezone: string;
  @ApiProperty({ type: [QueueSlotDto] })
  slots: QueueSlotDto[];
}

export class NextSlotsQueryDto extends ProfileQueryDto {
  /** How many slots, 1 to 50. */
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_NEXT_SLOTS, default: 5 })
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'count must be an integer' })
  @Min(1, { message: 'count must be at least 1' })
  @Max(MAX_NEXT_SLOTS, { message: `count must be at most ${MAX_NEXT_SLOTS}` })
  count?: number;
}

export class NextSlotsDto {
  /** The next free slot times, UTC, earliest first. */
  @ApiProperty({ type: [String], example: ['2026-11-30T08:00:00.000Z', '2026-12-02T16:30:00.000Z'] })
  slots: string[];
}
