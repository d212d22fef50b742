// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', '**/__fixtures__/**', '.bench-tmp/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/require-await': 'off',
      // Tool calls are async generators by contract; many finish without yielding progress.
      'require-yield': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // What is bundled loads on every start (docs/ARCHITECTURE.md, "Start-up").
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
          message:
            "Write `import * as z from 'zod'`: esbuild keeps every zod locale (~0.3 MiB) for a named `z` import.",
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@anthropic-ai/sdk',
              message:
                'Use src/model/anthropic-sdk.ts: the default client bundles every API resource.',
            },
            {
              name: '@actions/core',
              message:
                'Use src/github/workflow-commands.ts: @actions/core loads undici at start-up.',
            },
            {
              name: '@actions/github',
              message: 'Use src/github/github-client.ts: @actions/github loads undici at start-up.',
            },
          ],
        },
      ],
    },
  },
  {
    // One module owns child processes (docs/ARCHITECTURE.md, "Processes"). A rule of its own
    // name, so that it adds to the per-folder no-restricted-imports lists instead of replacing them.
    files: ['src/**/*.ts'],
    ignores: ['src/process/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['child_process', 'node:child_process', 'execa'].map((name) => ({
            name,
            message:
              'Start processes with runProcess (src/process/run-process.ts): it owns the process group, timeouts, output caps, cancellation and the scope.',
          })),
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
