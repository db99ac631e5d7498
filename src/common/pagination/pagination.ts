import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The highest `page`: keeps `OFFSET` far inside what Postgres accepts whatever the page size. */
export const MAX_PAGE = 1_000_000;

/**
 * An integer query value: digits only, and a safe integer (a longer run of digits stays a string
 * and fails the integer check). Every integer query parameter goes through it, with bounds.
 */
export const toInt = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : value;

/** Base for query DTOs: every endpoint accepts `profileId`. */
export class ProfileQueryDto {
  /** The profile to act on; defaults to the key's home profile. */
  @ApiPropertyOptional({ description: "The profile to act on; defaults to the key's home profile." })
  @IsOptional()
  @IsString()
  profileId?: string;
}

/** Base for write bodies: `profileId` is accepted in the body too. */
export class ProfileBodyDto {
  /** The profile to act on; defaults to the key's home profile. */
  @ApiPropertyOptional({ description: "The profile to act on; defaults to the key's home profile." })
  @IsOptional()
  @IsString()
  profileId?: string;
}

/**
 * The `limit` query field of a list (page- or cursor-paginated): an integer from 1, documented
 * as clamped; read it with pageLimit().
 */
export function PageLimit(): PropertyDecorator {
  // applyDecorators applies in array order, i.e. the reverse of stacked decorators: the type
  // check must come last here so it is reported first (as on `page`).
  return applyDecorators(
    Min(1, { message: 'limit must be at least 1' }),
    IsInt({ message: 'limit must be an integer' }),
    Transform(toInt),
    IsOptional(),
    ApiPropertyOptional({ minimum: 1, default: DEFAULT_PAGE_SIZE, description: 'Clamped to 100' }),
  );
}

export class PageQueryDto extends ProfileQueryDto {
  /** Page number, from 1. */
  @ApiPropertyOptional({ minimum: 1, maximum: MAX_PAGE, default: 1 })
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'page must be an integer' })
  @Min(1, { message: 'page must be at least 1' })
  @Max(MAX_PAGE, { message: `page must be at most ${MAX_PAGE}` })
  page?: number;

  /** Results per page; values over 100 are clamped to 100. */
  @PageLimit()
  limit?: number;
}

/** The page size a list query asks for, clamped to MAX_PAGE_SIZE. */
export function pageLimit(q: { limit?: number }): number {
  return Math.min(q.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
}

export interface PageWindow {
  page: number;
  limit: number;
  offset: number;
}

export function pageWindow(q: { page?: number; limit?: number }): PageWindow {
  const page = q.page ?? 1;
  const limit = pageLimit(q);
  return { page, limit, offset: (page - 1) * limit };
}

export interface Paged {
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

export function paged(window: PageWindow, total: number): Paged {
  return { page: window.page, limit: window.limit, total, hasMore: window.offset + window.limit < total };
}
