import { randomBytes } from 'node:crypto';
import { MIGRATIONS } from '../../migrations';
import { createDataSource } from '@/database/data-source';
import { adminQuery, dbUrl, runId, templateName } from '@test/support/db';
import { createTestApp, TestApp } from '@test/support/test-app';

describe('database', () => {
  it('should have migrations that match the entities (no drift)', async () => {
    // The run's template database has every migration applied; the schema builder lists what
    // the entities would still change.
    const ds = createDataSource(dbUrl(templateName()), 1);
    await ds.initialize();
    try {
      const pending = await ds.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
    } finally {
      await ds.destroy();
    }
  });

  describe('an app started against a database that does not exist', () => {
    const name = `sps_t_${runId()}_new_${randomBytes(3).toString('hex')}`;
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ env: { DATABASE_URL: dbUrl(name), DB_MIGRATE_ON_START: 'true' } });
    }, 120000);
    afterAll(async () => t?.close());

    it('should create it, apply every migration and be ready', async () => {
      expect(await adminQuery('SELECT 1 FROM pg_database WHERE datname = $1', [name])).toHaveLength(1);
      const ran = await t.ds.query<{ name: string }[]>('SELECT name FROM migrations ORDER BY id');
      expect(ran.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => m.name));
      await t.http().get('/health/ready').expect(200);
    });
  });
});
