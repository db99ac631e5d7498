import { Injectable } from '@nestjs/common';
import { JobHandler } from '../../queue/job-handler.decorator';
import { OutboxRelayService } from '../outbox-relay.service';

/** Periodic: moves committed outbox events to their queues (`relay-outbox`) and re-drives stuck ones (`redrive-outbox`). */
@Injectable()
export class OutboxRelayJob {
  constructor(private readonly relay: OutboxRelayService) {}

  @JobHandler('relay-outbox')
  onRelayOutbox(): Promise<unknown> {
    return this.relay.relayBatch();
  }

  @JobHandler('redrive-outbox')
  onRedriveOutbox(): Promise<unknown> {
    return this.relay.redriveBatch();
  }
}
