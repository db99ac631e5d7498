import { MigrationInterface, QueryRunner } from 'typeorm';

export class AccountTokenIssuedAt1795217270399 implements MigrationInterface {
  name = 'AccountTokenIssuedAt1795217270399';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "social_accounts" ADD "token_issued_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "social_accounts" DROP COLUMN "token_issued_at"`);
  }
}
