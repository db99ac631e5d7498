import { Body, Controller, Delete, Get, Param, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import {
  ApiKeyListDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  ListApiKeysQueryDto,
  RevokedApiKeyDto,
} from './dto/api-key.dto';
import { KeysService } from './keys.service';

@ApiTags('API keys')
@Controller('v1/api-keys')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  /** List API keys (never their secrets). */
  @Get()
  @RequirePermission('keys:read', { errors: ['invalid_request'] })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListApiKeysQueryDto): Promise<ApiKeyListDto> {
    return this.keys.list(auth, query);
  }

  /** Create a key with at most the permissions and scope of the calling key; the secret is returned once. */
  @Post()
  @RequirePermission('keys:write', {
    errors: [
      'invalid_request',
      'account_not_allowed',
      'plan_limit',
      'trial_expired',
      'idempotency_key_reused',
      'idempotency_key_in_use',
    ],
  })
  create(@CurrentAuth() auth: AuthContext, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.keys.create(auth, dto);
  }

  /** Revoke a key; it stops authenticating at once. */
  @Delete(':id')
  @RequirePermission('keys:write', {
    errors: ['not_found', 'trial_expired', 'idempotency_key_reused', 'idempotency_key_in_use'],
  })
  revoke(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<RevokedApiKeyDto> {
    return this.keys.revoke(auth, id);
  }
}
