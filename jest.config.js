/** Jest runs TypeScript through SWC. NestJS 12 (and a few other deps) ship ESM only,
 * so those packages are transformed to CommonJS as well (README, "Tests on ESM-only NestJS"). */
const esmOnly = [
  '@nestjs',
  '@modelcontextprotocol',
  'uuid',
  'nanoid',
  'openapi-fetch',
  'chalk',
  'ipaddr.js',
  'msgpackr',
];
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];
module.exports = {
  rootDir: '.',
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  moduleNameMapper: { '^@/(.*)$': '<rootDir>/src/$1', '^@test/(.*)$': '<rootDir>/test/$1' },
  testRegex: '(src|test)/.*\\.(spec|e2e-spec)\\.ts$',
  transform: { '^.+\\.(t|j|mj|cj)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  setupFiles: ['<rootDir>/test/setup/env.ts'],
  // Generous: CI runs the e2e files two at a time on two cores beside other work, where a file's
  // tests take several times as long as on an idle machine. A time-out here is not an assertion.
  testTimeout: 180000,
  maxWorkers: 2,
};
