import { MigrationInterface, QueryRunner } from 'typeorm';

export class TargetFirstComment1795700000000 implements MigrationInterface {
  name = 'TargetFirstComment1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "first_comment_status" text`);
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "first_comment_id" text`);
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "first_comment_error" text`);
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "first_comment_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "first_comment_at"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "first_comment_error"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "first_comment_id"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "first_comment_status"`);
  }
}
