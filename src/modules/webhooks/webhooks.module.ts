import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { HttpOutModule } from '@/common/http/http.module';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookSubscriptionEntity } from './entities/webhook-subscription.entity';
import { WebhookDeliveryProcessor } from './jobs/webhook-delivery.processor';
import { WebhookFanoutProcessor } from './jobs/webhook-fanout.processor';
import { WebhookSweepProcessor } from './jobs/webhook-sweep.processor';
import { WorkspaceDeliverySlots } from './jobs/workspace-delivery-slots';
import { WebhookDeliveriesService } from './webhook-deliveries.service';
import { WebhookSender } from './webhook-sender';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/** Subscriptions, fan-out of outbox events (`dispatch-event`) and signed delivery (`deliver-webhook`). */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookSubscriptionEntity, WebhookDeliveryEntity]), HttpOutModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhookDeliveriesService,
    WebhookSender,
    WebhookFanoutProcessor,
    WebhookDeliveryProcessor,
    WebhookSweepProcessor,
    WorkspaceDeliverySlots,
  ],
  exports: [WebhooksService],
})
export class WebhooksModule {}
