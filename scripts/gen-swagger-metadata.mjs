// Runs the @nestjs/swagger CLI plugin over src/ and writes src/metadata.ts, so both the tsc
// build and the SWC-based tests (which cannot run TS compiler plugins) get full schemas.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
import { ReadonlyVisitor } from '@nestjs/swagger/plugin';

// A stale file would be type-checked (and could fail) before it is replaced.
rmSync('./src/metadata.ts', { force: true });
const generator = new PluginMetadataGenerator();
generator.generate({
  visitors: [
    new ReadonlyVisitor({
      introspectComments: true,
      pathToSource: `${process.cwd()}/src`,
      classValidatorShim: true,
      dtoFileNameSuffix: ['.dto.ts'],
    }),
  ],
  outputDir: './src',
  filename: 'metadata.ts',
  tsconfigPath: 'tsconfig.build.json',
  watch: false,
  printDiagnostics: false,
});

// The generator copies import specifiers as written; `@/x` (the path alias) is `./x` from src/,
// and plain relative paths keep the file loadable where no alias resolver runs (dist/, SWC).
const file = './src/metadata.ts';
const seen = new Set();
const lines = readFileSync(file, 'utf8')
  .replaceAll('"@/', '"./')
  .split('\n')
  .filter((line) => {
    // The same module imported under both spellings is now listed twice in the `t` table.
    const key = /^\s*\["[^"]+"\]: await import\(/.test(line) ? line.trim() : null;
    if (key === null) return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
writeFileSync(file, lines.join('\n'));
