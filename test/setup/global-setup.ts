// Jest's globalSetup runs outside its module map, so the @test/ alias does not resolve here.
import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/database/migrate';
import { adminQuery, dbUrl } from '../support/db';

const DAY_MS = 86_400_000;

/** The start time encoded in a run id (`<Date.now() base 36><4 hex>`), or undefined. */
export function runStartedAt(id: string): number | undefined {
  const ms = parseInt(id.slice(0, -4), 36);
  return Number.isFinite(ms) && ms > 1_600_000_000_000 ? ms : undefined;
}

/** One migrated template database per run; each test file clones its own from it. */
export default async function globalSetup(): Promise<void> {
  const id = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  process.env.SPS_TEST_RUN_ID = id;
  const template = `sps_tmpl_${id}`;
  await migrate(dbUrl(template));
  // Databases left by runs that crashed more than a day ago (a run in progress elsewhere is younger).
  const rows = await adminQuery<{ datname: string }>(
    `SELECT datname FROM pg_database WHERE datname ~ '^sps_(t|tmpl)_[0-9a-z]+'`,
  );
  for (const { datname } of rows) {
    const runOf = /^sps_(?:t|tmpl)_([0-9a-z]+)/.exec(datname)?.[1] ?? '';
    const started = runStartedAt(runOf);
    if (started !== undefined && started < Date.now() - DAY_MS) {
      await adminQuery(`DROP DATABASE IF EXISTS "${datname.replace(/"/g, '""')}" WITH (FORCE)`).catch(() => undefined);
    }
  }
}
