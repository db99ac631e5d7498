import { Controller, Get, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { AccountLimitsService } from './account-limits.service';
import { AccountLimitsDto } from './dto/account-limits.dto';

@ApiTags('Accounts')
@Controller('v1')
export class AccountLimitsController {
  constructor(private readonly limits: AccountLimitsService) {}

  /**
   * The network's publishing caps for this account (Instagram and Threads per rolling 24 h,
   * TikTok and LinkedIn per day, YouTube uploads per project per day) and how much is used:
   * the network's own figure where it offers one, else our publish records. A post over a cap
   * is reported by POST /v1/posts/validate and fails at publish time without reaching the network.
   */
  @Get('accounts/:id/limits')
  @RequirePermission('accounts:read', { errors: ['not_found'] })
  get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<AccountLimitsDto> {
    return this.limits.get(auth, id);
  }
}
