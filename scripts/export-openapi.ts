/**
 * Writes the service's OpenAPI document to client/openapi.json (the typed client's input):
 *   node scripts/gen-swagger-metadata.mjs && node -r @swc-node/register scripts/export-openapi.ts [out.json]
 * Builds the Nest application in-process (no HTTP listener, no workers) against a throwaway
 * database that is dropped afterwards, and asks the swagger builder for the document.
 */
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Client } from 'pg';
import { createApp } from '../src/bootstrap/create-app';
import { buildOpenApiDocument } from '../src/bootstrap/swagger';
import { loadConfig } from '../src/config/config';
import { ensureDatabase } from '../src/database/ensure-database';

async function dropDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const out = resolve(process.argv[2] ?? 'client/openapi.json');
  const base = loadConfig();
  const throwaway = new URL(base.databaseUrl);
  throwaway.pathname = `/sps_openapi_${randomBytes(4).toString('hex')}`;
  const databaseUrl = throwaway.toString();
  await ensureDatabase(databaseUrl);
  try {
    const config = loadConfig(process.env, {
      DATABASE_URL: databaseUrl,
      DB_MIGRATE_ON_START: 'false',
      PROCESS_ROLE: 'api',
      LOG_LEVEL: 'warn',
    });
    const app = await createApp(config);
    try {
      const document = buildOpenApiDocument(app, config);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
      console.log(`Wrote ${out} (${Object.keys(document.paths).length} paths)`);
    } finally {
      await app.close();
    }
  } finally {
    await dropDatabase(databaseUrl);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
