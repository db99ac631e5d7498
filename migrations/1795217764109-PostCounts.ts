import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hand-written: counter tables for the exact `total` of GET /v1/posts, kept by triggers.
 *
 * post_counts(profile_id, state, content_type, n): posts per profile, state and content type.
 * post_platform_counts(profile_id, platform, state, content_type, n): posts with at least one
 * target on the platform (a post with two Facebook pages counts once), matching the list's
 * `EXISTS (… t.profile_id = p.profile_id AND t.platform = … AND t.post_id = p.id)` filter.
 *
 * Mostly statement-level AFTER triggers with transition tables: one aggregated upsert per
 * statement (a bulk insert of a million posts is one GROUP BY, not a million upserts). Each
 * upsert is `INSERT … ON CONFLICT DO UPDATE SET n = n + delta` (atomic under concurrency) and
 * writes its rows in key order, post_counts before post_platform_counts, so two statements
 * never lock the same counter rows in opposite orders. Deltas that net to zero (an UPDATE of
 * other columns) are skipped and take no lock.
 *
 *   posts INSERT / UPDATE               → post_counts; an UPDATE of state or content_type also
 *                                         moves each distinct platform of the post's targets
 *   posts DELETE (row-level, BEFORE)    → post_counts and the post's platforms, read while its
 *                                         targets still exist (a cascading delete is counted once)
 *   post_targets INSERT / DELETE / UPDATE of post_id, profile_id or platform
 *                                       → a (post, platform) counts while one target has it,
 *                                         and only while the post exists
 *
 * The post_targets trigger locks the targets' posts (FOR NO KEY UPDATE, in id order) before it
 * reads them: a state change of the post and a target insert/delete of the same post are then
 * serialised, and the one that runs second sees the first one's committed rows (READ COMMITTED
 * takes a new snapshot per statement).
 *
 * Assumed (and done by the app): a target is inserted with or after its post (a target whose
 * post does not exist yet is not counted); a post's targets are deleted in their own statement
 * or after the post (a cascading foreign key is fine); ids are never updated.
 *
 * The backfill runs with writes to posts and post_targets blocked (SHARE ROW EXCLUSIVE, reads
 * go on), so no change slips between the counting and the triggers.
 */

/**
 * The counter functions' texts. `shard`: with it (migration PostCountShards), each row also has a
 * `shard` key column set to that SQL expression; without it, the functions this migration created.
 */
export function postCountFunctions(shard?: string): string[] {
  const column = shard ? ', shard' : '';
  const value = shard ? `, ${shard}` : '';

  const UPSERT_POST_COUNTS = `INSERT INTO post_counts AS c (profile_id, state, content_type${column}, n)
      SELECT profile_id, state, content_type${value}, delta FROM d WHERE delta <> 0 ORDER BY 1, 2, 3
      ON CONFLICT (profile_id, state, content_type${column}) DO UPDATE SET n = c.n + EXCLUDED.n`;

  const UPSERT_PLATFORM_COUNTS = `INSERT INTO post_platform_counts AS c (profile_id, platform, state, content_type${column}, n)
      SELECT profile_id, platform, state, content_type${value}, delta FROM d WHERE delta <> 0 ORDER BY 1, 2, 3, 4
      ON CONFLICT (profile_id, platform, state, content_type${column}) DO UPDATE SET n = c.n + EXCLUDED.n`;

  /** `rows`: (id, profile_id, state, content_type, delta) of the posts the statement removed (-1) and added (+1). */
  function postDeltas(rows: string, platforms: boolean): string {
    const counts = `
    WITH r AS (${rows}),
    d AS (SELECT profile_id, state, content_type, sum(delta)::int AS delta FROM r GROUP BY 1, 2, 3)
    ${UPSERT_POST_COUNTS};`;
    if (!platforms) return counts;
    return `${counts}
    WITH r AS (${rows}),
    d AS (
      SELECT r.profile_id, t.platform, r.state, r.content_type, sum(r.delta)::int AS delta
        FROM r
        JOIN LATERAL (SELECT DISTINCT t.platform FROM post_targets t WHERE t.post_id = r.id AND t.profile_id = r.profile_id) t ON true
       GROUP BY 1, 2, 3, 4
    )
    ${UPSERT_PLATFORM_COUNTS};`;
  }

  const POST_ROWS = (table: string, delta: number) =>
    `SELECT id, profile_id, state, content_type, ${delta} AS delta FROM ${table}`;

  /**
   * `keys`: (post_id, profile_id, platform, removed, added) = targets of each key the statement
   * removed and added. A key counts while at least one target has it: before the statement
   * `now - added + removed` targets had it, after it `now`.
   */
  function targetDeltas(keys: string): string {
    return `
    WITH k AS (${keys}),
    c AS (
      SELECT k.*, (SELECT count(*) FROM post_targets t WHERE t.profile_id = k.profile_id AND t.platform = k.platform AND t.post_id = k.post_id) AS now_n
        FROM k
    ),
    d AS (
      SELECT p.profile_id, c.platform, p.state, p.content_type, sum((c.now_n > 0)::int - (c.now_n - c.added + c.removed > 0)::int)::int AS delta
        FROM c JOIN posts p ON p.id = c.post_id AND p.profile_id = c.profile_id
       GROUP BY 1, 2, 3, 4
    )
    ${UPSERT_PLATFORM_COUNTS};`;
  }

  const TARGET_KEYS = (table: string, removed: number, added: number) =>
    `SELECT post_id, profile_id, platform, ${removed} AS removed, ${added} AS added FROM ${table}`;
  const GROUPED = (rows: string) =>
    `SELECT post_id, profile_id, platform, sum(removed)::int AS removed, sum(added)::int AS added FROM (${rows}) x GROUP BY 1, 2, 3`;
  const LOCK_POSTS = (postIds: string) =>
    `PERFORM 1 FROM posts WHERE id IN (${postIds}) ORDER BY id FOR NO KEY UPDATE;`;

  const POSTS_FUNCTION = `CREATE FUNCTION post_counts_on_posts() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    -- Platforms come with the targets, inserted after the post.
    ${postDeltas(POST_ROWS('new_rows', 1), false)}
  ELSE
    -- Most updates (content, updated_at, version…) change nothing counted.
    IF NOT EXISTS (
      SELECT 1 FROM old_rows o
       WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.id = o.id AND n.profile_id = o.profile_id AND n.state = o.state AND n.content_type = o.content_type)
    ) THEN
      RETURN NULL;
    END IF;
    ${postDeltas(`${POST_ROWS('old_rows', -1)} UNION ALL ${POST_ROWS('new_rows', 1)}`, true)}
  END IF;
  RETURN NULL;
END
$fn$`;

  const TARGETS_FUNCTION = `CREATE FUNCTION post_counts_on_post_targets() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    ${LOCK_POSTS('SELECT post_id FROM new_rows')}
    ${targetDeltas(GROUPED(TARGET_KEYS('new_rows', 0, 1)))}
  ELSIF TG_OP = 'DELETE' THEN
    ${LOCK_POSTS('SELECT post_id FROM old_rows')}
    ${targetDeltas(GROUPED(TARGET_KEYS('old_rows', 1, 0)))}
  ELSE
    -- Status, attempts, publish_state… updates: nothing counted changes.
    IF NOT EXISTS (
      SELECT 1 FROM old_rows o
       WHERE NOT EXISTS (SELECT 1 FROM new_rows n WHERE n.id = o.id AND n.post_id = o.post_id AND n.profile_id = o.profile_id AND n.platform = o.platform)
    ) THEN
      RETURN NULL;
    END IF;
    ${LOCK_POSTS('SELECT post_id FROM old_rows UNION SELECT post_id FROM new_rows')}
    ${targetDeltas(GROUPED(`${TARGET_KEYS('old_rows', 1, 0)} UNION ALL ${TARGET_KEYS('new_rows', 0, 1)}`))}
  END IF;
  RETURN NULL;
END
$fn$`;

  /**
   * Deletes are row-level and BEFORE: the post's targets are still there, even when a cascade
   * will delete them, and post_counts is locked before post_platform_counts, as in every other
   * path (a statement-level AFTER DELETE would have to take them in the other order).
   */
  const BEFORE_POST_DELETE_FUNCTION = `CREATE FUNCTION post_counts_before_post_delete() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  INSERT INTO post_counts AS c (profile_id, state, content_type${column}, n)
    VALUES (OLD.profile_id, OLD.state, OLD.content_type${value}, -1)
    ON CONFLICT (profile_id, state, content_type${column}) DO UPDATE SET n = c.n + EXCLUDED.n;
  INSERT INTO post_platform_counts AS c (profile_id, platform, state, content_type${column}, n)
    SELECT OLD.profile_id, t.platform, OLD.state, OLD.content_type${value}, -1
      FROM (SELECT DISTINCT platform FROM post_targets WHERE post_id = OLD.id AND profile_id = OLD.profile_id) t
     ORDER BY 2
    ON CONFLICT (profile_id, platform, state, content_type${column}) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN OLD;
END
$fn$`;

  return [POSTS_FUNCTION, TARGETS_FUNCTION, BEFORE_POST_DELETE_FUNCTION];
}

const TRUNCATE_FUNCTION = `CREATE FUNCTION post_counts_on_truncate() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_TABLE_NAME = 'posts' THEN
    DELETE FROM post_counts;
  END IF;
  DELETE FROM post_platform_counts;
  RETURN NULL;
END
$fn$`;

export class PostCounts1795217764109 implements MigrationInterface {
  name = 'PostCounts1795217764109';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`LOCK TABLE "posts", "post_targets" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "post_counts" ("profile_id" uuid NOT NULL, "state" text NOT NULL, "content_type" text NOT NULL, "n" integer NOT NULL DEFAULT '0', CONSTRAINT "pk_post_counts" PRIMARY KEY ("profile_id", "state", "content_type"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "post_platform_counts" ("profile_id" uuid NOT NULL, "platform" text NOT NULL, "state" text NOT NULL, "content_type" text NOT NULL, "n" integer NOT NULL DEFAULT '0', CONSTRAINT "pk_post_platform_counts" PRIMARY KEY ("profile_id", "platform", "state", "content_type"))`,
    );
    for (const fn of postCountFunctions()) await queryRunner.query(fn);
    await queryRunner.query(TRUNCATE_FUNCTION);
    await queryRunner.query(
      `CREATE TRIGGER "trg_posts_counts_insert" AFTER INSERT ON "posts" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION post_counts_on_posts()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "trg_posts_counts_update" AFTER UPDATE ON "posts" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION post_counts_on_posts()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "trg_posts_counts_delete" BEFORE DELETE ON "posts" FOR EACH ROW EXECUTE FUNCTION post_counts_before_post_delete()`,
    );
    for (const op of ['INSERT', 'DELETE'] as const) {
      const ref = op === 'INSERT' ? 'NEW TABLE AS new_rows' : 'OLD TABLE AS old_rows';
      await queryRunner.query(
        `CREATE TRIGGER "trg_post_targets_counts_${op.toLowerCase()}" AFTER ${op} ON "post_targets" REFERENCING ${ref} FOR EACH STATEMENT EXECUTE FUNCTION post_counts_on_post_targets()`,
      );
    }
    await queryRunner.query(
      `CREATE TRIGGER "trg_post_targets_counts_update" AFTER UPDATE ON "post_targets" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION post_counts_on_post_targets()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "trg_posts_counts_truncate" AFTER TRUNCATE ON "posts" FOR EACH STATEMENT EXECUTE FUNCTION post_counts_on_truncate()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "trg_post_targets_counts_truncate" AFTER TRUNCATE ON "post_targets" FOR EACH STATEMENT EXECUTE FUNCTION post_counts_on_truncate()`,
    );
    await queryRunner.query(
      `INSERT INTO "post_counts" (profile_id, state, content_type, n) SELECT profile_id, state, content_type, count(*) FROM "posts" GROUP BY 1, 2, 3`,
    );
    await queryRunner.query(
      `INSERT INTO "post_platform_counts" (profile_id, platform, state, content_type, n)
       SELECT p.profile_id, t.platform, p.state, p.content_type, count(*)
         FROM "posts" p
         JOIN (SELECT DISTINCT post_id, profile_id, platform FROM "post_targets") t ON t.post_id = p.id AND t.profile_id = p.profile_id
        GROUP BY 1, 2, 3, 4`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const op of ['insert', 'update', 'delete', 'truncate']) {
      await queryRunner.query(`DROP TRIGGER "trg_post_targets_counts_${op}" ON "post_targets"`);
      await queryRunner.query(`DROP TRIGGER "trg_posts_counts_${op}" ON "posts"`);
    }
    await queryRunner.query(`DROP FUNCTION post_counts_on_truncate()`);
    await queryRunner.query(`DROP FUNCTION post_counts_before_post_delete()`);
    await queryRunner.query(`DROP FUNCTION post_counts_on_post_targets()`);
    await queryRunner.query(`DROP FUNCTION post_counts_on_posts()`);
    await queryRunner.query(`DROP TABLE "post_platform_counts"`);
    await queryRunner.query(`DROP TABLE "post_counts"`);
  }
}
