import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The fan-out (`dispatch-event`) looks up an event's deliveries still pending from an earlier run
 * by `event_id`. The only index holding event_id had it second (subscription_id, event_id), so
 * that lookup scanned the whole index, or every delivery of the workspace: one pass over all the
 * workspace's deliveries per event, growing with the table (about 560 buffers and 1.8 ms of
 * Postgres per event at a few thousand deliveries). Led by event_id, it is one index probe.
 */
export class WebhookDeliveriesByEvent1795805000000 implements MigrationInterface {
  name = 'WebhookDeliveriesByEvent1795805000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "ix_webhook_deliveries_event" ON "webhook_deliveries" ("event_id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_event"`);
  }
}
