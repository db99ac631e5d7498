import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@/config/config';
import { NETWORKS } from './networks';
import { PLATFORM_NAMES } from './platform-name';

const root = join(__dirname, '..', '..', '..');

/** The typed list is the one place a network is registered: its config keys are real and documented. */
describe('NETWORKS', () => {
  it.each(PLATFORM_NAMES)('should define %s under its own name, with config keys the config reads', (name) => {
    const network = NETWORKS[name];
    expect(network.name).toBe(name);
    const { clientId, clientSecret } = network.configKeys;
    const config = loadConfig({ NODE_ENV: 'test', [clientId]: `${name}-id`, [clientSecret]: `${name}-secret` });
    expect(config.credentials[name]).toEqual({ clientId: `${name}-id`, clientSecret: `${name}-secret` });
    for (const file of ['.env.example', 'README.md'])
      for (const key of [clientId, clientSecret]) expect(readFileSync(join(root, file), 'utf8')).toContain(key);
  });
});
