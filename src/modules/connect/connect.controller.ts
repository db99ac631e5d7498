import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { ConnectSessionsService } from './connect-sessions.service';
import {
  ConnectPlatformParamDto,
  ConnectSessionDto,
  CreateConnectSessionDto,
  StartConnectQueryDto,
} from './dto/connect.dto';

@ApiTags('Connect')
@Controller('v1/connect')
export class ConnectController {
  constructor(private readonly sessions: ConnectSessionsService) {}

  /** Create a hosted OAuth connect session; send the person to its `url`. Plan feature `hosted_connect`. */
  @Post('sessions')
  @RequirePermission('accounts:write', {
    errors: ['invalid_request', 'plan_limit', 'trial_expired', 'idempotency_key_reused', 'idempotency_key_in_use'],
  })
  create(@CurrentAuth() auth: AuthContext, @Body() dto: CreateConnectSessionDto): Promise<ConnectSessionDto> {
    return this.sessions.create(auth, dto.platform, dto.redirectUrl);
  }

  /** A connect session: `pending`, `completed` (with `accounts`), `failed` (with `error`) or `expired`. */
  @Get('sessions/:id')
  @RequirePermission('accounts:read', { errors: ['not_found'] })
  get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<ConnectSessionDto> {
    return this.sessions.get(auth, id);
  }

  /** Start a hosted connect flow: a fresh session, as `POST /v1/connect/sessions` returns it. */
  @Get(':platform')
  @RequirePermission('accounts:write', { errors: ['invalid_request', 'plan_limit', 'trial_expired'] })
  start(
    @CurrentAuth() auth: AuthContext,
    @Param() params: ConnectPlatformParamDto,
    @Query() query: StartConnectQueryDto,
  ): Promise<ConnectSessionDto> {
    return this.sessions.create(auth, params.platform, query.redirectUrl);
  }
}
