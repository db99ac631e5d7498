import { MigrationInterface, QueryRunner } from 'typeorm';

export class TargetsWaitingOnNetwork1795230000000 implements MigrationInterface {
  name = 'TargetsWaitingOnNetwork1795230000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "waiting_since" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "next_check_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "post_targets" ADD "checks" integer NOT NULL DEFAULT 0`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "checks"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "next_check_at"`);
    await queryRunner.query(`ALTER TABLE "post_targets" DROP COLUMN "waiting_since"`);
  }
}
