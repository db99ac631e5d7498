import { Global, Module } from '@nestjs/common';
import { OutboxListenerService } from './outbox-listener.service';
import { OutboxRelayService } from './outbox-relay.service';
import { OutboxService } from './outbox.service';
import { OutboxRelayJob } from './jobs/outbox-relay.job';

@Global()
@Module({
  providers: [OutboxService, OutboxRelayService, OutboxRelayJob, OutboxListenerService],
  exports: [OutboxService, OutboxRelayService],
})
export class OutboxModule {}
