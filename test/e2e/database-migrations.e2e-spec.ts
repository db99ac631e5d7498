import { randomBytes } from 'node:crypto';
import { MIGRATIONS } from '../../migrations';
import { Client } from 'pg';
import { createDataSource } from '@/database/data-source';
import { pendingSchemaChanges } from '@/database/schema-diff';
import { adminQuery, dbUrl, runId, templateName } from '@test/support/db';
import { createTestApp, TestApp } from '@test/support/test-app';

describe('database', () => {
  it('should have migrations that match the entities (no drift)', async () => {
    // The run's template database has every migration applied; the schema builder lists what
    // the entities would still change.
    const ds = createDataSource(dbUrl(templateName()), 1);
    await ds.initialize();
    // The most queries a pg client had under way at once: one, never a query sent while another
    // runs (pg's deprecation warning, an error from pg 9).
    const running = new Map<Client, number>();
    let most = 0;
    const proto = Client.prototype as unknown as { query: (this: Client, ...a: unknown[]) => unknown };
    const query = proto.query;
    proto.query = function (this: Client, ...args: unknown[]) {
      running.set(this, (running.get(this) ?? 0) + 1);
      most = Math.max(most, running.get(this)!);
      const settled = () => void running.set(this, running.get(this)! - 1);
      const result = query.apply(this, args);
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function')
        (result as PromiseLike<unknown>).then(settled, settled);
      else settled();
      return result;
    };
    try {
      const pending = await pendingSchemaChanges(ds);
      expect(pending.upQueries.map((q) => q.query)).toEqual([]);
      expect(most).toBe(1);
    } finally {
      proto.query = query;
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
