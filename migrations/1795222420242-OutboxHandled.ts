import { MigrationInterface, QueryRunner } from 'typeorm';

export class OutboxHandled1795222420242 implements MigrationInterface {
  name = 'OutboxHandled1795222420242';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "events" ADD "handled_at" TIMESTAMP WITH TIME ZONE`);
    // Rows relayed before this column existed were handled already: do not redrive history.
    await queryRunner.query(`UPDATE "events" SET "handled_at" = "dispatched_at" WHERE "dispatched_at" IS NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX "ix_events_unhandled" ON "events"  ("dispatched_at") WHERE handled_at IS NULL AND dispatched_at IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_events_unhandled"`);
    await queryRunner.query(`ALTER TABLE "events" DROP COLUMN "handled_at"`);
  }
}
