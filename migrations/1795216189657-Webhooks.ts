import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1795216189657 implements MigrationInterface {
  name = 'Webhooks1795216189657';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "subscription_id" uuid NOT NULL, "event_id" uuid, "type" text NOT NULL, "payload" jsonb NOT NULL, "event_created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "status" text NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "response_code" integer, "response_body" text, "error" text, "next_attempt_at" TIMESTAMP WITH TIME ZONE, "last_attempt_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_workspace" ON "webhook_deliveries"  ("workspace_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_subscription_created" ON "webhook_deliveries"  ("subscription_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_deliveries_subscription_event" ON "webhook_deliveries"  ("subscription_id", "event_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "webhook_subscriptions" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "url" text NOT NULL, "events" text array NOT NULL, "scope" text NOT NULL DEFAULT 'profile', "is_active" boolean NOT NULL DEFAULT true, "secret_enc" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_bf631ae77d39849d599817fb6f4" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_subscriptions_workspace_active" ON "webhook_subscriptions"  ("workspace_id") WHERE is_active AND deleted_at IS NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_subscriptions_profile" ON "webhook_subscriptions"  ("profile_id", "created_at") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_subscriptions_profile"`);
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_subscriptions_workspace_active"`);
    await queryRunner.query(`DROP TABLE "webhook_subscriptions"`);
    await queryRunner.query(`DROP INDEX "public"."uq_webhook_deliveries_subscription_event"`);
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_subscription_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_workspace"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
  }
}
