import type { DataSource, QueryRunner } from 'typeorm';
import type { SqlInMemory } from 'typeorm/driver/SqlInMemory';

/**
 * What TypeORM's schema builder would still change for the entities (`upQueries` empty: no drift),
 * its statements one at a time. The builder reads the tables on one query runner (one `pg` client)
 * and sends several of those reads at once (`Promise.all` in PostgresQueryRunner.loadTables), which
 * `pg` only queues, warning "Calling client.query() when the client is already executing a query
 * is deprecated" (an error from pg 9). Here each read waits for the one before it.
 */
export async function pendingSchemaChanges(ds: DataSource): Promise<SqlInMemory> {
  const createQueryRunner = ds.createQueryRunner.bind(ds);
  ds.createQueryRunner = (...args: Parameters<DataSource['createQueryRunner']>): QueryRunner =>
    oneQueryAtATime(createQueryRunner(...args));
  try {
    return await ds.driver.createSchemaBuilder().log();
  } finally {
    // The prototype's method again.
    delete (ds as Partial<Pick<DataSource, 'createQueryRunner'>>).createQueryRunner;
  }
}

/** `runner`, its queries sent one after the other (each once the one before it has settled). */
function oneQueryAtATime(runner: QueryRunner): QueryRunner {
  const query = runner.query.bind(runner);
  let previous: Promise<unknown> = Promise.resolve();
  runner.query = ((...args: Parameters<QueryRunner['query']>) => {
    const next = previous.then(() => query(...args));
    previous = next.catch(() => undefined);
    return next;
  }) as QueryRunner['query'];
  return runner;
}
