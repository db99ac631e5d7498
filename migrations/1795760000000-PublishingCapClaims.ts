import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * publishing_cap_claims: one counter row per cap subject (`account:<id>`, or `app:<network>` for a
 * cap of the whole app). A fresh send increments the rows of its network's caps in the transaction
 * that marks its target `publishing`, then counts the cap's published and in-flight targets
 * (its own included) and rolls back when that passes the limit — the post_usage way (migration
 * PostUsage): the increment's row lock queues concurrent claims of a cap until commit, so each
 * reads a count that includes every committed claim.
 */
export class PublishingCapClaims1795760000000 implements MigrationInterface {
  name = 'PublishingCapClaims1795760000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "publishing_cap_claims" ("subject" text NOT NULL, "claims" bigint NOT NULL DEFAULT 0, CONSTRAINT "PK_publishing_cap_claims" PRIMARY KEY ("subject"))`,
    );
    // The in-flight targets a claim counts (per account, or per network for a per-app cap).
    await queryRunner.query(
      `CREATE INDEX "ix_post_targets_platform_in_flight" ON "post_targets" ("platform", "account_id") WHERE status IN ('publishing', 'waiting_on_network')`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_post_targets_platform_in_flight"`);
    await queryRunner.query(`DROP TABLE "publishing_cap_claims"`);
  }
}
