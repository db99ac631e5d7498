import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * post_usage: posts per workspace per UTC month (`month:YYYY-MM`) and per creating key per UTC
 * day (`day:YYYY-MM-DD`), kept by statement-level triggers on posts (insert, delete, and updates
 * that move created_at, workspace_id or created_by_key_id), so they always equal the count(*)
 * they replace. A creation checks its caps against them instead of counting posts under a
 * per-workspace advisory lock: its own insert's trigger increments the rows (row locks, in a
 * fixed order) and the transaction reads them back before it commits.
 */
export class PostUsage1795525000000 implements MigrationInterface {
  name = 'PostUsage1795525000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "post_usage" ("subject" uuid NOT NULL, "period" text NOT NULL, "n" integer NOT NULL DEFAULT 0, CONSTRAINT "PK_post_usage" PRIMARY KEY ("subject", "period"))`,
    );
    const upsert = (rows: string) => `
        INSERT INTO post_usage (subject, period, n)
        SELECT subject, period, sum(d) FROM (
          SELECT workspace_id AS subject, 'month:' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS period, d FROM (${rows}) r
          UNION ALL
          SELECT created_by_key_id, 'day:' || to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), d FROM (${rows}) r
           WHERE created_by_key_id IS NOT NULL
        ) c
        GROUP BY subject, period HAVING sum(d) <> 0
        ORDER BY subject, period
        ON CONFLICT (subject, period) DO UPDATE SET n = post_usage.n + EXCLUDED.n;`;
    const cols = 'workspace_id, created_by_key_id, created_at';
    await queryRunner.query(`
      CREATE FUNCTION post_usage_on_insert() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${upsert(`SELECT ${cols}, 1 AS d FROM new_rows`)} RETURN NULL; END $$`);
    await queryRunner.query(`
      CREATE FUNCTION post_usage_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN ${upsert(`SELECT ${cols}, -1 AS d FROM old_rows`)} RETURN NULL; END $$`);
    // Every UPDATE of posts fires it (transition tables cannot go with a column list); a state
    // change moves nothing, so the sums are zero and no counter row is touched (or locked).
    await queryRunner.query(`
      CREATE FUNCTION post_usage_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM old_rows o JOIN new_rows n ON n.id = o.id
                    WHERE (o.workspace_id, o.created_by_key_id, o.created_at) IS DISTINCT FROM (n.workspace_id, n.created_by_key_id, n.created_at)) THEN
          ${upsert(`SELECT ${cols}, -1 AS d FROM old_rows UNION ALL SELECT ${cols}, 1 AS d FROM new_rows`)}
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER post_usage_insert AFTER INSERT ON posts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION post_usage_on_insert()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER post_usage_delete AFTER DELETE ON posts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION post_usage_on_delete()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER post_usage_update AFTER UPDATE ON posts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION post_usage_on_update()`,
    );
    // The posts already there.
    await queryRunner.query(upsert(`SELECT ${cols}, 1 AS d FROM posts`).replace(/^\s+/, ''));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER post_usage_update ON posts`);
    await queryRunner.query(`DROP TRIGGER post_usage_delete ON posts`);
    await queryRunner.query(`DROP TRIGGER post_usage_insert ON posts`);
    await queryRunner.query(`DROP FUNCTION post_usage_on_update()`);
    await queryRunner.query(`DROP FUNCTION post_usage_on_delete()`);
    await queryRunner.query(`DROP FUNCTION post_usage_on_insert()`);
    await queryRunner.query(`DROP TABLE "post_usage"`);
  }
}
