import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795215858211 implements MigrationInterface {
  name = 'Initial1795215858211';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "events" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid, "type" text NOT NULL, "actor" jsonb NOT NULL, "data" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "dispatched_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_40731c7151fe4be3116e45ddf73" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_events_workspace" ON "events"  ("workspace_id") `);
    await queryRunner.query(
      `CREATE INDEX "ix_events_undispatched" ON "events"  ("created_at") WHERE dispatched_at IS NULL`,
    );
    await queryRunner.query(`CREATE INDEX "ix_events_profile_created" ON "events"  ("profile_id", "created_at") `);
    await queryRunner.query(
      `CREATE TABLE "idempotency_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "api_key_id" uuid NOT NULL, "key" text NOT NULL, "method" text NOT NULL, "path" text NOT NULL, "request_hash" text NOT NULL, "response_status" integer, "response_body" jsonb, "locked_until" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_8ad20779ad0411107a56e53d0f6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_idempotency_expires" ON "idempotency_keys"  ("expires_at") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_idempotency_scope" ON "idempotency_keys"  ("api_key_id", "method", "path", "key") `,
    );
    await queryRunner.query(
      `CREATE TABLE "request_logs" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid, "request_id" text NOT NULL, "method" text NOT NULL, "path" text NOT NULL, "status" integer NOT NULL, "duration_ms" integer NOT NULL, "key_id" uuid, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_1edd3815ae37a9b9511f5a26dca" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_request_logs_profile_created" ON "request_logs"  ("profile_id", "created_at") `,
    );
    await queryRunner.query(
      `CREATE TABLE "social_accounts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "platform" text NOT NULL, "platform_account_id" text NOT NULL, "name" text NOT NULL, "username" text, "avatar_url" text, "status" text NOT NULL DEFAULT 'active', "access_token_enc" text, "refresh_token_enc" text, "token_key_id" text, "token_expires_at" TIMESTAMP WITH TIME ZONE, "refresh_expires_at" TIMESTAMP WITH TIME ZONE, "scopes" text array NOT NULL DEFAULT '{}', "metadata" jsonb NOT NULL DEFAULT '{}', "comment_sync" boolean NOT NULL DEFAULT false, "connected_at" TIMESTAMP WITH TIME ZONE NOT NULL, "disconnected_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e9e58d2d8e9fafa20af914d9750" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_social_accounts_profile" ON "social_accounts"  ("profile_id") `);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_social_accounts_profile_platform_page" ON "social_accounts"  ("profile_id", "platform", "platform_account_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "name" text NOT NULL, "prefix" text NOT NULL, "key_hash" text NOT NULL, "permissions" text array NOT NULL, "profile_ids" uuid array, "account_ids" uuid array, "home_profile_id" uuid NOT NULL, "owner_user_id" uuid, "expires_at" TIMESTAMP WITH TIME ZONE, "max_posts_per_day" integer, "rate_limit_per_minute" integer, "rate_limit_per_hour" integer, "created_by_key_id" uuid, "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_5c8a79801b44bd27b79228e1dad" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_api_keys_workspace" ON "api_keys"  ("workspace_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_api_keys_hash" ON "api_keys"  ("key_hash") `);
    await queryRunner.query(
      `CREATE TABLE "policies" ("profile_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "allowed_platforms" text array, "require_approval" boolean NOT NULL DEFAULT false, "approver_user_ids" uuid array NOT NULL DEFAULT '{}', "blocked_terms" text array NOT NULL DEFAULT '{}', "max_schedule_days_ahead" integer, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e41a36b373557ac8f435cfa0cdf" PRIMARY KEY ("profile_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "post_history" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "post_id" uuid NOT NULL, "from_state" text, "to_state" text NOT NULL, "reason" text, "actor" jsonb NOT NULL, "at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6dd0832f4c2ac89b2ede9c4d2ea" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_post_history_post_at" ON "post_history"  ("post_id", "at") `);
    await queryRunner.query(
      `CREATE TABLE "post_targets" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "post_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "account_id" uuid NOT NULL, "platform" text NOT NULL, "page_name" text NOT NULL, "status" text NOT NULL DEFAULT 'pending', "attempts" integer NOT NULL DEFAULT '0', "external_id" text, "external_url" text, "publish_state" jsonb NOT NULL DEFAULT '{}', "error" text, "error_category" text, "published_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_ab5ca61ef403b13ea38f944bd92" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_post_targets_profile_platform" ON "post_targets"  ("profile_id", "platform", "post_id") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_post_targets_post_account" ON "post_targets"  ("post_id", "account_id") `,
    );
    await queryRunner.query(
      `CREATE TABLE "posts" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "profile_id" uuid NOT NULL, "state" text NOT NULL, "content_type" text NOT NULL, "message" text, "caption" text, "content" jsonb NOT NULL, "scheduled_at" TIMESTAMP WITH TIME ZONE, "created_by_key_id" uuid, "created_by_user_id" uuid, "approved_by_user_id" uuid, "rejection_reason" text, "published_at" TIMESTAMP WITH TIME ZONE, "version" integer NOT NULL DEFAULT '1', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_2829ac61eff60fcec60d7274b9e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_posts_workspace" ON "posts"  ("workspace_id") `);
    await queryRunner.query(`CREATE INDEX "ix_posts_key_created" ON "posts"  ("created_by_key_id", "created_at") `);
    await queryRunner.query(`CREATE INDEX "ix_posts_due" ON "posts"  ("scheduled_at") WHERE state = 'scheduled'`);
    await queryRunner.query(
      `CREATE INDEX "ix_posts_profile_type_created" ON "posts"  ("profile_id", "content_type", "created_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_posts_profile_state_created" ON "posts"  ("profile_id", "state", "created_at") `,
    );
    await queryRunner.query(`CREATE INDEX "ix_posts_profile_created" ON "posts"  ("profile_id", "created_at") `);
    await queryRunner.query(
      `CREATE TABLE "profiles" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "name" text NOT NULL, "description" text, "external_id" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deleted_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_8e520eb4da7dc01d0e190447c8e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_profiles_workspace" ON "profiles"  ("workspace_id") `);
    await queryRunner.query(
      `CREATE TABLE "users" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "workspace_id" uuid NOT NULL, "email" text NOT NULL, "name" text, "role" text NOT NULL DEFAULT 'member', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_a3ffb1c0c8416b9fc6f907b7433" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_users_workspace" ON "users"  ("workspace_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "uq_users_workspace_email" ON "users"  ("workspace_id", "email") `);
    await queryRunner.query(
      `CREATE TABLE "workspaces" ("id" uuid NOT NULL DEFAULT gen_random_uuid(), "name" text NOT NULL, "plan" text NOT NULL DEFAULT 'trial', "trial_ends_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "workspaces"`);
    await queryRunner.query(`DROP INDEX "public"."uq_users_workspace_email"`);
    await queryRunner.query(`DROP INDEX "public"."ix_users_workspace"`);
    await queryRunner.query(`DROP TABLE "users"`);
    await queryRunner.query(`DROP INDEX "public"."ix_profiles_workspace"`);
    await queryRunner.query(`DROP TABLE "profiles"`);
    await queryRunner.query(`DROP INDEX "public"."ix_posts_profile_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_posts_profile_state_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_posts_profile_type_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_posts_due"`);
    await queryRunner.query(`DROP INDEX "public"."ix_posts_key_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_posts_workspace"`);
    await queryRunner.query(`DROP TABLE "posts"`);
    await queryRunner.query(`DROP INDEX "public"."uq_post_targets_post_account"`);
    await queryRunner.query(`DROP INDEX "public"."ix_post_targets_profile_platform"`);
    await queryRunner.query(`DROP TABLE "post_targets"`);
    await queryRunner.query(`DROP INDEX "public"."ix_post_history_post_at"`);
    await queryRunner.query(`DROP TABLE "post_history"`);
    await queryRunner.query(`DROP TABLE "policies"`);
    await queryRunner.query(`DROP INDEX "public"."uq_api_keys_hash"`);
    await queryRunner.query(`DROP INDEX "public"."ix_api_keys_workspace"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
    await queryRunner.query(`DROP INDEX "public"."uq_social_accounts_profile_platform_page"`);
    await queryRunner.query(`DROP INDEX "public"."ix_social_accounts_profile"`);
    await queryRunner.query(`DROP TABLE "social_accounts"`);
    await queryRunner.query(`DROP INDEX "public"."ix_request_logs_profile_created"`);
    await queryRunner.query(`DROP TABLE "request_logs"`);
    await queryRunner.query(`DROP INDEX "public"."uq_idempotency_scope"`);
    await queryRunner.query(`DROP INDEX "public"."ix_idempotency_expires"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
    await queryRunner.query(`DROP INDEX "public"."ix_events_profile_created"`);
    await queryRunner.query(`DROP INDEX "public"."ix_events_undispatched"`);
    await queryRunner.query(`DROP INDEX "public"."ix_events_workspace"`);
    await queryRunner.query(`DROP TABLE "events"`);
  }
}
