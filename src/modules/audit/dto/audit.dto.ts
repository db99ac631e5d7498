import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { PageQueryDto, toInt } from '@/common/pagination/pagination';

export class ListEventsQueryDto extends PageQueryDto {
  /** Only events of this type (e.g. post.published, api_key.created). */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  type?: string;
}

export class ListLogsQueryDto extends PageQueryDto {
  /** Only requests answered with this HTTP status. */
  @IsOptional()
  @Transform(toInt)
  @IsInt({ message: 'status must be an HTTP status code' })
  @Min(100)
  @Max(599)
  status?: number;

  /** Only requests with this method. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @IsIn(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], { message: 'method must be one of GET, POST, PUT, PATCH, DELETE' })
  method?: string;
}

export class ActorDto {
  type: string;
  id: string | null;
  userId?: string | null;
}

export class AuditEventDto {
  id: string;
  type: string;
  createdAt: string;
  actor: ActorDto;
  data: Record<string, unknown>;
}

export class AuditEventListDto {
  events: AuditEventDto[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}

export class RequestLogDto {
  id: string;
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  keyId: string | null;
  createdAt: string;
}

export class RequestLogListDto {
  logs: RequestLogDto[];
  page: number;
  limit: number;
  total: number;
  hasMore: boolean;
}
