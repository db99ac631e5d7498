import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function dbUrl(name: string): string {
  const url = new URL(PG_BASE);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery<T = unknown>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: dbUrl('postgres') });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

export function runId(): string {
  const id = process.env.SPS_TEST_RUN_ID;
  if (!id) throw new Error('SPS_TEST_RUN_ID is not set: run tests through jest (global setup).');
  return id;
}

export function templateName(): string {
  return `sps_tmpl_${runId()}`;
}

/** A fresh database for one test file, cloned from the run's migrated template. */
export async function createFileDatabase(): Promise<{ name: string; url: string }> {
  const name = `sps_t_${runId()}_${randomBytes(4).toString('hex')}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${templateName()}"`);
      break;
    } catch (err) {
      // Another worker may be cloning the template at the same moment ("being accessed by other users").
      if (attempt > 20 || (err as { code?: string }).code !== '55006') throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
  return { name, url: dbUrl(name) };
}
