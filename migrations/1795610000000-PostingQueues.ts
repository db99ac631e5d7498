import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Posting queues (issue 11 item 4): a profile's weekly slots in its time zone, and the slots
 * taken by posts created with `addToQueue: true`. The primary key of posting_queue_slots is what
 * makes a slot go to one post only: concurrent creations that pick the same slot conflict there,
 * and the later one moves on to the next free slot.
 */
export class PostingQueues1795610000000 implements MigrationInterface {
  name = 'PostingQueues1795610000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "posting_queues" ("profile_id" uuid NOT NULL, "timezone" text NOT NULL, "slots" jsonb NOT NULL DEFAULT '[]', "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_posting_queues" PRIMARY KEY ("profile_id"), CONSTRAINT "FK_posting_queues_profile" FOREIGN KEY ("profile_id") REFERENCES "profiles"("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(
      `CREATE TABLE "posting_queue_slots" ("profile_id" uuid NOT NULL, "slot_at" TIMESTAMP WITH TIME ZONE NOT NULL, "post_id" uuid, CONSTRAINT "PK_posting_queue_slots" PRIMARY KEY ("profile_id", "slot_at"), CONSTRAINT "FK_posting_queue_slots_profile" FOREIGN KEY ("profile_id") REFERENCES "profiles"("id") ON DELETE CASCADE, CONSTRAINT "FK_posting_queue_slots_post" FOREIGN KEY ("post_id") REFERENCES "posts"("id") ON DELETE CASCADE)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "posting_queue_slots"`);
    await queryRunner.query(`DROP TABLE "posting_queues"`);
  }
}
