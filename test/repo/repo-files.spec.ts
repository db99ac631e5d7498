import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (f: string): string => readFileSync(join(ROOT, f), 'utf8');

describe('repository files a newcomer reads', () => {
  it('should cite only files that exist in the configuration files', () => {
    for (const file of ['jest.config.js', 'eslint.config.mjs', 'Dockerfile', 'scripts/test.sh', '.ci/run']) {
      const cited = [...read(file).matchAll(/(?<![\w.*/-])([\w./-]+\.(?:md|json|ts|mjs|sh|yml))\b/g)].map((m) => m[1]);
      const missing = cited.filter(
        (c) =>
          !c.includes('*') &&
          !/^(\/|(\.\/)?(var|dist|node_modules)\/)/.test(c) &&
          !existsSync(join(ROOT, c)) &&
          !existsSync(join(ROOT, dirname(file), c)),
      );
      expect({ file, missing }).toEqual({ file, missing: [] });
    }
  });

  it('should build the image on a Node major that package.json engines supports, and use npm ci without a fallback', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const majors = [...read('Dockerfile').matchAll(/^FROM node:(\d+)/gm)].map((m) => m[1]);
    expect(majors.length).toBeGreaterThan(0);
    for (const major of majors) expect(engines).toMatch(new RegExp(`(\\^|>=)${major}\\.`));
    for (const file of ['Dockerfile', 'scripts/dev.sh', '.ci/run']) {
      expect(read(file)).toMatch(/npm ci\b/);
      expect({ file, fallback: /npm ci[^\n]*\|\|\s*npm install/.test(read(file)) }).toEqual({ file, fallback: false });
    }
  });
});
