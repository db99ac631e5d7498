import { loadConfig, loadDotEnv } from '../config/config';
import { createDataSource } from './data-source';
import { ensureDatabase } from './ensure-database';

/** Any constant shared by every process of the service: the advisory lock serialising migrations. */
const MIGRATION_LOCK = 7_241_970_113;

/**
 * Creates the database if needed and applies pending migrations. Several processes starting at
 * once (api and worker replicas) take turns on an advisory lock, so each migration runs once.
 */
export async function migrate(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const ds = createDataSource(databaseUrl, 2);
  await ds.initialize();
  const lock = ds.createQueryRunner();
  try {
    await lock.connect();
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const ran = await ds.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.release();
    await ds.destroy();
  }
}

if (require.main === module) {
  loadDotEnv();
  const config = loadConfig();
  migrate(config.databaseUrl)
    .then((ran) => {
      console.log(ran.length ? `Applied ${ran.length} migration(s): ${ran.join(', ')}` : 'Database is up to date.');
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
