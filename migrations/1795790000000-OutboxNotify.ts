import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A committed outbox row wakes the relay at once (LISTEN outbox_events in the worker role) instead
 * of at its next poll (OUTBOX_POLL_MS, kept as the fallback). A statement-level trigger: no extra
 * round trip for the writer, and NOTIFY is sent only when the transaction commits (never for a
 * rollback); Postgres folds a transaction's identical notifications into one.
 */
export class OutboxNotify1795790000000 implements MigrationInterface {
  name = 'OutboxNotify1795790000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE FUNCTION "outbox_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         PERFORM pg_notify('outbox_events', '');
         RETURN NULL;
       END $$`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "tr_events_outbox_notify" AFTER INSERT ON "events" FOR EACH STATEMENT EXECUTE FUNCTION "outbox_notify"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "tr_events_outbox_notify" ON "events"`);
    await queryRunner.query(`DROP FUNCTION "outbox_notify"()`);
  }
}
