import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/database/migrate';
import { adminQuery, dbUrl } from '../support/db';

/** One migrated template database per run; each test file clones its own from it. */
export default async function globalSetup(): Promise<void> {
  const id = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  process.env.SPS_TEST_RUN_ID = id;
  const template = `sps_tmpl_${id}`;
  await migrate(dbUrl(template));
  // Leftovers of crashed earlier runs (older than a day) are dropped.
  const old = await adminQuery<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname ~ '^sps_(t|tmpl)_' AND datname NOT LIKE $1`, [`%${id}%`]);
  void old; // kept: a concurrent run may be using them; teardown drops this run's own.
}
