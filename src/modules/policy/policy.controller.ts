import { Body, Controller, Get, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import { ProfileQueryDto } from '@/common/pagination/pagination';
import { PolicyResponseDto, UpdatePolicyDto } from './dto/policy.dto';
import { PolicyService } from './policy.service';

@ApiTags('Policy')
@Controller('v1/policy')
export class PolicyController {
  constructor(private readonly policy: PolicyService) {}

  /** The profile's guardrails (defaults when never set). */
  @Get()
  @RequirePermission('policy:read')
  get(@CurrentAuth() auth: AuthContext, @Query() _query: ProfileQueryDto): Promise<PolicyResponseDto> {
    return this.policy.get(auth);
  }

  /** Update the profile's guardrails; omitted fields keep their value. */
  @Put()
  @RequirePermission('policy:write', {
    errors: ['invalid_request', 'trial_expired', 'idempotency_key_reused', 'idempotency_key_in_use'],
  })
  update(@CurrentAuth() auth: AuthContext, @Body() dto: UpdatePolicyDto): Promise<PolicyResponseDto> {
    return this.policy.update(auth, dto);
  }
}
