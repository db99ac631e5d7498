import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Network caps (issue 11 item 6): published targets counted per account, or per network for a
 * cap of the whole app (YouTube's per-project upload quota), within a window.
 */
export class PublishingCaps1795750000000 implements MigrationInterface {
  name = 'PublishingCaps1795750000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "ix_post_targets_account_published" ON "post_targets" ("account_id", "published_at") WHERE status = 'success'`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_post_targets_platform_published" ON "post_targets" ("platform", "published_at") WHERE status = 'success'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_post_targets_platform_published"`);
    await queryRunner.query(`DROP INDEX "public"."ix_post_targets_account_published"`);
  }
}
