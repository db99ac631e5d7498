import { MigrationInterface, QueryRunner } from 'typeorm';

export class PostsScheduling1795216254394 implements MigrationInterface {
  name = 'PostsScheduling1795216254394';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_history" ALTER COLUMN "at" SET DEFAULT clock_timestamp()`);
    await queryRunner.query(`CREATE INDEX "ix_posts_queued" ON "posts"  ("updated_at") WHERE state = 'queued'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_posts_queued"`);
    await queryRunner.query(`ALTER TABLE "post_history" ALTER COLUMN "at" SET DEFAULT now()`);
  }
}
