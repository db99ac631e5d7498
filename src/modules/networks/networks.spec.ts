import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@/config/config';
import { sandboxCredentials } from './kit/definition';
import { NETWORKS } from './networks';
import { PlatformRegistry } from './network-registry';
import { PLATFORM_NAMES, PlatformName } from './platform-name';

const root = join(__dirname, '..', '..', '..');
const read = (file: string): string => readFileSync(join(root, file), 'utf8');
const endpointsFor = (name: PlatformName, env: Record<string, string>) => {
  const registry = new PlatformRegistry(loadConfig({ NODE_ENV: 'test', ...env }));
  void registry.onApplicationShutdown();
  return registry.endpointsFor(name);
};

/** NETWORKS is the one place a network is registered: its app's env vars are read, listed and documented. */
describe('NETWORKS', () => {
  it.each(PLATFORM_NAMES)('should give %s the client id and secret its definition names', (name) => {
    const { clientId, clientSecret } = NETWORKS[name].configKeys;
    expect(endpointsFor(name, { [clientId]: `${name}-id`, [clientSecret]: `${name}-secret` })).toMatchObject({
      clientId: `${name}-id`,
      clientSecret: `${name}-secret`,
    });
    expect(endpointsFor(name, { [clientId]: '' })).toMatchObject(sandboxCredentials(name, NETWORKS[name].configKeys));
  });

  it.each(PLATFORM_NAMES)(
    'should list the env vars of %s in .env.example with their defaults, and in the README',
    (name) => {
      const keys = NETWORKS[name].configKeys;
      const defaults = sandboxCredentials(name, keys);
      const envExample = read('.env.example').split('\n');
      expect(envExample).toContain(`${keys.clientId}=${defaults.clientId}`);
      expect(envExample).toContain(`${keys.clientSecret}=${defaults.clientSecret}`);
      for (const key of [keys.clientId, keys.clientSecret]) expect(read('README.md')).toContain(key);
    },
  );

  it('should name each definition by its key', () => {
    for (const name of PLATFORM_NAMES) expect(NETWORKS[name].name).toBe(name);
  });
});
