// Jest's globalTeardown runs outside its module map, so the @test/ alias does not resolve here.
import { adminQuery } from '../support/db';

export default async function globalTeardown(): Promise<void> {
  const id = process.env.SPS_TEST_RUN_ID;
  if (!id || process.env.TEST_KEEP_DB) return;
  const dbs = await adminQuery<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [
    `sps_%${id}%`,
  ]);
  for (const { datname } of dbs) {
    await adminQuery(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => undefined);
  }
}
