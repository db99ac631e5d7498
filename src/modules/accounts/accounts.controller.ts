import { Body, Controller, Delete, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { AccountsService } from './accounts.service';
import {
  AccountListDto,
  AccountResponseDto,
  ListAccountsQueryDto,
  SocialPageListDto,
  UpdateAccountDto,
} from './dto/account.dto';

const WRITE_ERRORS = [
  'not_found',
  'invalid_request',
  'trial_expired',
  'idempotency_key_reused',
  'idempotency_key_in_use',
] as const;

@ApiTags('Accounts')
@Controller('v1')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  /** The connected accounts of the profile (disconnected ones are left out; `expired` ones need reconnecting). */
  @Get('accounts')
  @RequirePermission('accounts:read', { errors: ['invalid_request'] })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListAccountsQueryDto): Promise<AccountListDto> {
    return this.accounts.list(auth, query);
  }

  /** Older listing of the connected pages. */
  @Get('social-pages')
  @RequirePermission('accounts:read', { errors: ['invalid_request'] })
  listPages(@CurrentAuth() auth: AuthContext, @Query() query: ListAccountsQueryDto): Promise<SocialPageListDto> {
    return this.accounts.listPages(auth, query);
  }

  /** One connected account (disconnected ones included, with their status). */
  @Get('accounts/:id')
  @RequirePermission('accounts:read', { errors: ['not_found'] })
  get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<AccountResponseDto> {
    return this.accounts.get(auth, id);
  }

  /** Turn comment sync on or off. */
  @Patch('accounts/:id')
  @RequirePermission('accounts:write', { errors: [...WRITE_ERRORS] })
  update(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: UpdateAccountDto,
  ): Promise<AccountResponseDto> {
    return this.accounts.update(auth, id, dto);
  }

  /** Disconnect an account: its tokens are deleted and `account.disconnected` fires. */
  @Delete('accounts/:id')
  @RequirePermission('accounts:write', { errors: [...WRITE_ERRORS] })
  disconnect(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<AccountResponseDto> {
    return this.accounts.disconnect(auth, id);
  }
}
