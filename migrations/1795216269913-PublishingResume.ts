import { MigrationInterface, QueryRunner } from 'typeorm';

export class PublishingResume1795216269913 implements MigrationInterface {
  name = 'PublishingResume1795216269913';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX "ix_posts_processing" ON "posts"  ("updated_at") WHERE state = 'processing'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_posts_processing"`);
  }
}
