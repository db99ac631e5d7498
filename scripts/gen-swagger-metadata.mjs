// Runs the @nestjs/swagger CLI plugin over src/ and writes src/metadata.ts, so both the tsc
// build and the SWC-based tests (which cannot run TS compiler plugins) get full schemas.
import { PluginMetadataGenerator } from '@nestjs/cli/lib/compiler/plugins/plugin-metadata-generator.js';
import { ReadonlyVisitor } from '@nestjs/swagger/plugin';

const generator = new PluginMetadataGenerator();
generator.generate({
  visitors: [new ReadonlyVisitor({ introspectComments: true, pathToSource: `${process.cwd()}/src`, classValidatorShim: true, dtoFileNameSuffix: ['.dto.ts'] })],
  outputDir: './src',
  filename: 'metadata.ts',
  tsconfigPath: 'tsconfig.build.json',
  watch: false,
  printDiagnostics: false,
});
