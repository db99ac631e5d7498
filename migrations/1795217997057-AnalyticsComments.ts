import { MigrationInterface, QueryRunner } from 'typeorm';

export class AnalyticsComments1795217997057 implements MigrationInterface {
  name = 'AnalyticsComments1795217997057';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "account_daily_metrics" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "account_id" uuid NOT NULL, "platform" text NOT NULL, "date" date NOT NULL, "views" integer NOT NULL, "engagement" integer NOT NULL, "shares" integer NOT NULL, "followers" integer NOT NULL, "reach" integer NOT NULL, "captured_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_35ac70ff3c1a4cd975b6b1ffb5b" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_account_daily_metrics_profile_date" ON "account_daily_metrics"  ("profile_id", "date") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_account_daily_metrics_account_date" ON "account_daily_metrics"  ("account_id", "date") `,
    );
    await queryRunner.query(
      `CREATE TABLE "analytics_backfills" ("account_id" uuid NOT NULL, "connected_at" TIMESTAMP WITH TIME ZONE NOT NULL, "from_date" date NOT NULL, "days" integer NOT NULL, "backfilled_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_a14462f83f31cb3139e165ae06f" PRIMARY KEY ("account_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "post_daily_metrics" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "post_id" uuid NOT NULL, "target_id" uuid NOT NULL, "account_id" uuid NOT NULL, "platform" text NOT NULL, "external_id" text NOT NULL, "date" date NOT NULL, "views" integer NOT NULL, "likes" integer NOT NULL, "comments" integer NOT NULL, "shares" integer NOT NULL, "reach" integer NOT NULL, "engagement" integer NOT NULL, "captured_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1374bdab005b68ed40ab2862dff" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_post_daily_metrics_profile_date" ON "post_daily_metrics"  ("profile_id", "date") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_post_daily_metrics_target_date" ON "post_daily_metrics"  ("target_id", "date") `,
    );
    await queryRunner.query(
      `CREATE TABLE "comments" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "account_id" uuid NOT NULL, "post_id" uuid NOT NULL, "target_id" uuid NOT NULL, "platform" text NOT NULL, "external_id" text NOT NULL, "external_post_id" text NOT NULL, "author_name" text NOT NULL, "text" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_8bf68bc960f2b69e818bdb90dcb" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_comments_profile_post_created" ON "comments"  ("profile_id", "post_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_comments_profile_account_created" ON "comments"  ("profile_id", "account_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_comments_profile_created" ON "comments"  ("profile_id", "created_at", "id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_comments_account_external" ON "comments"  ("account_id", "external_id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."uq_comments_account_external"`);
    await queryRunner.query(`DROP INDEX "public"."ix_comments_profile_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_comments_profile_account_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_comments_profile_post_created"`);
    await queryRunner.query(`DROP TABLE "comments"`);
    await queryRunner.query(`DROP INDEX "public"."uq_post_daily_metrics_target_date"`);
    await queryRunner.query(`DROP INDEX "public"."ix_post_daily_metrics_profile_date"`);
    await queryRunner.query(`DROP TABLE "post_daily_metrics"`);
    await queryRunner.query(`DROP TABLE "analytics_backfills"`);
    await queryRunner.query(`DROP INDEX "public"."uq_account_daily_metrics_account_date"`);
    await queryRunner.query(`DROP INDEX "public"."ix_account_daily_metrics_profile_date"`);
    await queryRunner.query(`DROP TABLE "account_daily_metrics"`);
  }
}
