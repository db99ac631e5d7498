import { MigrationInterface, QueryRunner } from 'typeorm';

export class Media1795217753052 implements MigrationInterface {
  name = 'Media1795217753052';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "media" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "session_id" uuid, "key" text NOT NULL, "file_name" text NOT NULL, "file_type" text NOT NULL, "size" bigint, "status" text NOT NULL DEFAULT 'pending', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "uploaded_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_f4e0fcac36e050de337b670d8bd" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_media_workspace" ON "media"  ("workspace_id") `);
    await queryRunner.query(`CREATE INDEX "ix_media_session" ON "media"  ("session_id") WHERE session_id IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_media_key" ON "media"  ("key") `);
    await queryRunner.query(`CREATE INDEX "ix_media_profile_created" ON "media"  ("profile_id", "created_at") `);
    await queryRunner.query(
      `CREATE TABLE "media_upload_sessions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "status" text NOT NULL DEFAULT 'pending', "page_token_enc" text NOT NULL, "redirect_url" text, "max_files" integer NOT NULL, "actor" jsonb NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "completed_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_8152a453d406be65099147d9b4f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_media_upload_sessions_profile" ON "media_upload_sessions"  ("profile_id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_media_upload_sessions_profile"`);
    await queryRunner.query(`DROP TABLE "media_upload_sessions"`);
    await queryRunner.query(`DROP INDEX "public"."ix_media_profile_created"`);
    await queryRunner.query(`DROP INDEX "public"."uq_media_key"`);
    await queryRunner.query(`DROP INDEX "public"."ix_media_session"`);
    await queryRunner.query(`DROP INDEX "public"."ix_media_workspace"`);
    await queryRunner.query(`DROP TABLE "media"`);
  }
}
