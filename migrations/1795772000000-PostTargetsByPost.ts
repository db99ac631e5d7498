import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The post-count triggers (migration PostCounts) read a post's targets by `post_id = … AND
 * profile_id = …`. With no statistics (a table not analyzed yet: autovacuum off, or just after a
 * bulk load) the planner took ix_post_targets_profile_platform for it, whose post_id is its third
 * column: a scan of every target of the profile per post (about 9 ms per post at 100,000 targets,
 * 18 s for a scheduler batch of 1,000). Led by post_id, this index makes that lookup one index
 * probe whatever the statistics (index-only: it holds the platform the triggers read).
 */
export class PostTargetsByPost1795772000000 implements MigrationInterface {
  name = 'PostTargetsByPost1795772000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "ix_post_targets_post_profile_platform" ON "post_targets" ("post_id", "profile_id", "platform")`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_post_targets_post_profile_platform"`);
  }
}
