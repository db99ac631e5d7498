import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { configSchema, loadConfig } from '@/config/config';
import { NETWORKS } from '@/modules/networks/networks';

const ROOT = join(__dirname, '..', '..');
const read = (f: string): string => readFileSync(join(ROOT, f), 'utf8');

/** The variables config.ts's schema reads. */
const schemaVariables = (): string[] => Object.keys(configSchema.shape);
/** Network app credentials: read through AppConfig.setting under the names each definition declares. */
const networkVariables = (): string[] =>
  Object.values(NETWORKS).flatMap((n) => [n.configKeys.clientId, n.configKeys.clientSecret]);
/** Read by something other than the service: docker compose's store passwords, npm run dev's key ceiling. */
const OUTSIDE_THE_SERVICE = { compose: ['POSTGRES_PASSWORD', 'REDIS_PASSWORD'], dev: ['DEV_KEY_RATE_LIMIT'] };

/** The variable names in the first column of the README's configuration table. */
function readmeTableVariables(): string[] {
  const section = /^## Configuration\n([\s\S]*?)^## /m.exec(read('README.md'))?.[1] ?? '';
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
}

describe('configuration documentation', () => {
  it('should list in the README table every variable the service reads, and nothing else', () => {
    const table = readmeTableVariables();
    const read = [...schemaVariables(), ...networkVariables()];
    expect(schemaVariables().length).toBeGreaterThan(30);
    expect(read.filter((v) => !table.includes(v))).toEqual([]);
    expect(table.filter((v) => !read.includes(v) && !OUTSIDE_THE_SERVICE.dev.includes(v))).toEqual([]);
  });

  it('should list in .env.example only variables something reads, each at its default', () => {
    const example = parseEnv(read('.env.example')) as Record<string, string>;
    const known = [...schemaVariables(), ...networkVariables(), ...Object.values(OUTSIDE_THE_SERVICE).flat()];
    expect(Object.keys(example).filter((v) => !known.includes(v))).toEqual([]);
    // Its values are the defaults: the service configured by it alone is the one configured by nothing.
    const { unlisted: _fromExample, ...fromExample } = loadConfig({}, example) as unknown as Record<string, unknown>;
    const { unlisted: _fromNothing, ...fromNothing } = loadConfig({}) as unknown as Record<string, unknown>;
    expect(fromExample).toEqual(fromNothing);
  });
});
