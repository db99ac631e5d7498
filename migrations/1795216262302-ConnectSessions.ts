import { MigrationInterface, QueryRunner } from 'typeorm';

export class ConnectSessions1795216262302 implements MigrationInterface {
  name = 'ConnectSessions1795216262302';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "connect_sessions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "platform" text NOT NULL, "status" text NOT NULL DEFAULT 'pending', "redirect_url" text, "actor" jsonb NOT NULL, "page_token_enc" text NOT NULL, "oauth_state_hash" text, "code_verifier_enc" text, "pending_grant_enc" text, "account_ids" uuid array NOT NULL DEFAULT '{}', "error" jsonb, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "finished_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_982053319b186a5483cb7be9321" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_connect_sessions_profile" ON "connect_sessions"  ("profile_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_connect_sessions_state" ON "connect_sessions"  ("oauth_state_hash") WHERE oauth_state_hash IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_connect_sessions_pending_expiry" ON "connect_sessions"  ("expires_at") WHERE status = 'pending'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_connect_sessions_pending_expiry"`);
    await queryRunner.query(`DROP INDEX "public"."uq_connect_sessions_state"`);
    await queryRunner.query(`DROP INDEX "public"."ix_connect_sessions_profile"`);
    await queryRunner.query(`DROP TABLE "connect_sessions"`);
  }
}
