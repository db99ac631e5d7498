/**
 * Writes a migration with the difference between the entities and the committed migrations:
 * a scratch database is migrated, then TypeORM's schema builder says what is missing.
 * Usage: npm run db:generate -- <Name>
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '../config/config';
import { createDataSource } from './data-source';
import { migrate } from './migrate';
import { pendingSchemaChanges } from './schema-diff';

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || !/^[A-Za-z][A-Za-z0-9]*$/.test(name)) throw new Error('Usage: npm run db:generate -- <PascalCaseName>');
  const base = new URL(loadConfig().databaseUrl);
  const scratch = new URL(base.toString());
  scratch.pathname = `/sps_migration_scratch_${process.pid}`;
  await migrate(scratch.toString());
  const ds = createDataSource(scratch.toString(), 2);
  await ds.initialize();
  const sql = await pendingSchemaChanges(ds);
  await ds.destroy();
  const admin = new URL(base.toString());
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${scratch.pathname.slice(1)}"`);
  await client.end();
  if (sql.upQueries.length === 0) {
    console.log('No changes: entities match the migrations.');
    return;
  }
  const ts = Date.now();
  const className = `${name}${ts}`;
  const q = (s: string) => '`' + s.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';
  const up = sql.upQueries.map((x) => `    await queryRunner.query(${q(x.query)});`).join('\n');
  const down = sql.downQueries
    .reverse()
    .map((x) => `    await queryRunner.query(${q(x.query)});`)
    .join('\n');
  const file = `${ts}-${name}`;
  const body = `import { MigrationInterface, QueryRunner } from 'typeorm';\n\nexport class ${className} implements MigrationInterface {\n  name = '${className}';\n\n  public async up(queryRunner: QueryRunner): Promise<void> {\n${up}\n  }\n\n  public async down(queryRunner: QueryRunner): Promise<void> {\n${down}\n  }\n}\n`;
  const dir = join(__dirname, '../../migrations');
  writeFileSync(join(dir, `${file}.ts`), body);
  const indexPath = join(dir, 'index.ts');
  let index = readFileSync(indexPath, 'utf8');
  index = index.replace('// @generated-imports', `import { ${className} } from './${file}';\n// @generated-imports`);
  index = index.replace('  // @generated-list', `  ${className},\n  // @generated-list`);
  writeFileSync(indexPath, index);
  console.log(`Wrote migrations/${file}.ts`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
