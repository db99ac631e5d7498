import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@/common/auth/auth-context';
import { CurrentAuth, RequirePermission } from '@/common/auth/decorators';
import type { ErrorCode } from '@/common/errors/error-catalogue';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  DeletedWebhookDto,
  ListDeliveriesQueryDto,
  ListWebhooksQueryDto,
  TestWebhookDto,
  UpdateWebhookDto,
  WebhookDeliveryListDto,
  WebhookDeliveryResponseDto,
  WebhookListDto,
  WebhookResponseDto,
  WebhookSecretDto,
} from './dto/webhook.dto';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhooksService } from './webhooks.service';

const WRITE_ERRORS: ErrorCode[] = ['plan_limit', 'trial_expired', 'idempotency_key_reused', 'idempotency_key_in_use'];

/** Webhook subscriptions and their deliveries (plan feature `webhooks`). The signature scheme is in the tag description. */
@ApiTags('Webhooks')
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  /** List the subscriptions of the profile (never their secrets). */
  @Get()
  @RequirePermission('webhooks:read', {
    errors: ['invalid_request', 'plan_limit'],
  })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListWebhooksQueryDto): Promise<WebhookListDto> {
    return this.webhooks.list(auth, query);
  }

  /** Create a subscription; the signing secret is returned this once. */
  @Post()
  @RequirePermission('webhooks:write', {
    errors: ['invalid_request', 'account_not_allowed', ...WRITE_ERRORS],
  })
  create(@CurrentAuth() auth: AuthContext, @Body() dto: CreateWebhookDto): Promise<CreatedWebhookDto> {
    return this.webhooks.create(auth, dto);
  }

  /** One subscription (never its secret). */
  @Get(':id')
  @RequirePermission('webhooks:read', { errors: ['not_found', 'plan_limit'] })
  get(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<WebhookResponseDto> {
    return this.webhooks.get(auth, id);
  }

  /** Change url, events or isActive. `isActive: false` pauses: events while paused are dropped, not queued. */
  @Patch(':id')
  @RequirePermission('webhooks:write', {
    errors: ['not_found', 'invalid_request', 'account_not_allowed', ...WRITE_ERRORS],
  })
  update(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: UpdateWebhookDto,
  ): Promise<WebhookResponseDto> {
    return this.webhooks.update(auth, id, dto);
  }

  /** Delete a subscription; deliveries still queued are cancelled. */
  @Delete(':id')
  @RequirePermission('webhooks:write', {
    errors: ['not_found', ...WRITE_ERRORS],
  })
  remove(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<DeletedWebhookDto> {
    return this.webhooks.remove(auth, id);
  }

  /** Replace the signing secret; the old one stops verifying at once (no overlap). */
  @Post(':id/rotate-secret')
  @HttpCode(200)
  @RequirePermission('webhooks:write', {
    errors: ['not_found', ...WRITE_ERRORS],
  })
  rotateSecret(@CurrentAuth() auth: AuthContext, @Param('id') id: string): Promise<WebhookSecretDto> {
    return this.webhooks.rotateSecret(auth, id);
  }

  /** Queue a synthetic event of `eventType` (one attempt): same envelope, headers and signature as a real one, with `data.test: true`. */
  @Post(':id/test')
  @HttpCode(202)
  @RequirePermission('webhooks:write', {
    errors: ['not_found', 'invalid_request', 'invalid_state_transition', ...WRITE_ERRORS],
  })
  test(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Body() dto: TestWebhookDto,
  ): Promise<WebhookDeliveryResponseDto> {
    return this.deliveries.sendTest(auth, id, dto);
  }

  /** Delivery records, newest first; filter by `status`. */
  @Get(':id/deliveries')
  @RequirePermission('webhooks:read', {
    errors: ['not_found', 'invalid_request', 'plan_limit'],
  })
  listDeliveries(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<WebhookDeliveryListDto> {
    return this.deliveries.list(auth, id, query);
  }

  /** Send a failed, abandoned or cancelled delivery again: same envelope `id`, next `Service-Delivery-Attempt`. */
  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  @RequirePermission('webhooks:write', {
    errors: ['not_found', 'invalid_state_transition', ...WRITE_ERRORS],
  })
  retryDelivery(
    @CurrentAuth() auth: AuthContext,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<WebhookDeliveryResponseDto> {
    return this.deliveries.redeliver(auth, id, deliveryId);
  }
}
