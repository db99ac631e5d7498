import { MigrationInterface, QueryRunner } from 'typeorm';

export class ConnectBrowserBinding1795600000000 implements MigrationInterface {
  name = 'ConnectBrowserBinding1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "connect_sessions" ADD "browser_nonce_hash" text`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "connect_sessions" DROP COLUMN "browser_nonce_hash"`);
  }
}
