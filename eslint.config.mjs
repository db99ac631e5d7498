import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/** The feature modules a network folder may not import (it knows only its kit, src/common and src/config). */
const otherModules = readdirSync(new URL('./src/modules', import.meta.url)).filter((m) => m !== 'networks');

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'client/**', 'bench/**', 'src/metadata.ts', 'migrations/**', 'var/**'] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/ban-ts-comment': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    files: ['src/modules/networks/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)modules/(?!networks(/|$))|^(\\.\\./)+(${otherModules.join('|')})(/|$)`,
              message:
                'The network layer imports only its kit, src/common and src/config, never posts or other modules.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/common/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)modules/|^(\\.\\./)+modules(/|$)`,
              message: 'src/common is below the feature modules: it imports nothing from src/modules.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests read supertest's `res.body` (typed `any`: untyped JSON) freely; src may not.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Fakes implement Promise-returning contracts with synchronous bodies; `async` makes a throw a rejection.
      '@typescript-eslint/require-await': 'off',
    },
  },
);
