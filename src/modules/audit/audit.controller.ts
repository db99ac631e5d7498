import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { AuditService } from './audit.service';
import { AuditEventListDto, ListEventsQueryDto, ListLogsQueryDto, RequestLogListDto } from './dto/audit.dto';

@ApiTags('Audit')
@Controller('v1')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  /** The profile's audit trail: every webhook event type plus administrative actions. */
  @Get('events')
  @RequirePermission('audit:read', { errors: ['invalid_request'] })
  events(@CurrentAuth() auth: AuthContext, @Query() query: ListEventsQueryDto): Promise<AuditEventListDto> {
    return this.audit.listEvents(auth, query);
  }

  /** One row per API request made against the profile: no bodies, no secrets. */
  @Get('logs')
  @RequirePermission('audit:read', { errors: ['invalid_request'] })
  logs(@CurrentAuth() auth: AuthContext, @Query() query: ListLogsQueryDto): Promise<RequestLogListDto> {
    return this.audit.listLogs(auth, query);
  }
}
