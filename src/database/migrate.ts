import { loadConfig } from '../config/config';
import { createDataSource } from './data-source';
import { ensureDatabase } from './ensure-database';

/** Creates the database if needed and applies pending migrations. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const ds = createDataSource(databaseUrl, 2);
  await ds.initialize();
  try {
    const ran = await ds.runMigrations({ transaction: 'each' });
    return ran.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

if (require.main === module) {
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
