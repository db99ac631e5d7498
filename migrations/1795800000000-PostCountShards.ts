import { MigrationInterface, QueryRunner } from 'typeorm';
import { postCountFunctions } from './1795217764109-PostCounts';

/** Counter rows per (profile, state, content type[, platform]): one per connection's shard. */
const SHARDS = 16;

/**
 * Hand-written: the post counters (migration PostCounts) split into 16 shards, so the writes of one
 * profile stop queueing behind each other. Every post's state change moved the same few counter
 * rows of its profile (e.g. `queued` and `processing`), and a row stays locked until its
 * transaction commits: a creation, the worker's moves and the final move of every post of a
 * profile waited for each other, one commit at a time. Now each connection writes the rows of
 * its own shard (`post_count_shard()`: its backend pid modulo 16), so two connections contend
 * only when they share a shard; a total is the sum over the shards, as it was the sum over states.
 * Lock order is unchanged: a transaction writes one shard, in key order.
 */
export class PostCountShards1795800000000 implements MigrationInterface {
  name = 'PostCountShards1795800000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE FUNCTION post_count_shard() RETURNS smallint LANGUAGE sql STABLE PARALLEL SAFE AS $$ SELECT (pg_backend_pid() % ${SHARDS})::smallint $$`,
    );
    for (const table of ['post_counts', 'post_platform_counts']) {
      const key =
        table === 'post_counts' ? 'profile_id, state, content_type' : 'profile_id, platform, state, content_type';
      await queryRunner.query(`ALTER TABLE "${table}" ADD COLUMN "shard" smallint NOT NULL DEFAULT 0`);
      await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT "pk_${table}"`);
      await queryRunner.query(`ALTER TABLE "${table}" ADD CONSTRAINT "pk_${table}" PRIMARY KEY (${key}, shard)`);
    }
    for (const fn of postCountFunctions('post_count_shard()'))
      await queryRunner.query(fn.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const fn of postCountFunctions())
      await queryRunner.query(fn.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION'));
    for (const table of ['post_counts', 'post_platform_counts']) {
      const key =
        table === 'post_counts' ? 'profile_id, state, content_type' : 'profile_id, platform, state, content_type';
      // The shards folded back into one row per key.
      await queryRunner.query(
        `CREATE TEMP TABLE folded AS SELECT ${key}, sum(n)::int AS n FROM "${table}" GROUP BY ${key}`,
      );
      await queryRunner.query(`DELETE FROM "${table}"`);
      await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT "pk_${table}"`);
      await queryRunner.query(`ALTER TABLE "${table}" DROP COLUMN "shard"`);
      await queryRunner.query(`INSERT INTO "${table}" (${key}, n) SELECT ${key}, n FROM folded`);
      await queryRunner.query(`DROP TABLE folded`);
      await queryRunner.query(`ALTER TABLE "${table}" ADD CONSTRAINT "pk_${table}" PRIMARY KEY (${key})`);
    }
    await queryRunner.query(`DROP FUNCTION post_count_shard()`);
  }
}
