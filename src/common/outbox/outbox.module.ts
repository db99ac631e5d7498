import { Global, Module } from '@nestjs/common';
import { OutboxRelayService } from './outbox-relay.service';
import { OutboxService } from './outbox.service';
import { OutboxRelayJob } from './jobs/outbox-relay.job';

@Global()
@Module({
  providers: [OutboxService, OutboxRelayService, OutboxRelayJob],
  exports: [OutboxService, OutboxRelayService],
})
export class OutboxModule {}
