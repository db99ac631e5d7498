import { MigrationInterface, QueryRunner } from 'typeorm';

export class ProfileBranding1795620000000 implements MigrationInterface {
  name = 'ProfileBranding1795620000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "profiles" ADD "branding" jsonb`);
    await queryRunner.query(`ALTER TABLE "profiles" ADD "branding_logo" bytea`);
    await queryRunner.query(`ALTER TABLE "profiles" ADD "branding_logo_type" text`);
    await queryRunner.query(`ALTER TABLE "profiles" ADD "branding_logo_hash" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "profiles" DROP COLUMN "branding_logo_hash"`);
    await queryRunner.query(`ALTER TABLE "profiles" DROP COLUMN "branding_logo_type"`);
    await queryRunner.query(`ALTER TABLE "profiles" DROP COLUMN "branding_logo"`);
    await queryRunner.query(`ALTER TABLE "profiles" DROP COLUMN "branding"`);
  }
}
