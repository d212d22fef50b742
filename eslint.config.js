// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The layers (docs/ARCHITECTURE.md, "Layout"; __tests__/lint/layering.test.ts proves each rule).
// The engine runs the same under the CLI, the action and the tests, so it imports neither of them.
// A folder that does not exist yet (shell/) is listed too, so the rule holds from its first file.
const ENGINE = [
  'agent',
  'execution',
  'tools',
  'permissions',
  'policy',
  'hooks',
  'model',
  'mcp',
  'shell',
];

// Imports in src/ are relative, so a layer is named by the folder a `../` climbs into; no folder
// inside the engine is called github, cli, demo or testkit.
const TESTKIT = {
  regex: '^(\\./)?(\\.\\./)+testkit(/|$)',
  message: 'testkit/ holds the fakes of the tests and the demo: only src/demo/ may import it.',
};
const OUTER_LAYERS = {
  regex: '^(\\./)?(\\.\\./)+(github|cli|demo)(/|$)',
  message:
    'The engine (src/agent, execution, tools, permissions, policy, hooks, model, mcp, shell) imports nothing from src/github/, src/cli/ or src/demo/: pass what it needs in.',
};
const ACTIONS = {
  regex: '^@actions/',
  message: 'The engine does not talk to the runner: src/github/ does, and passes the result in.',
};
const IO = {
  regex:
    '^(node:)?(fs|child_process|net|http|https|http2|dgram|dns|tls|worker_threads)(/|$)|^execa$',
  message:
    'src/permissions/ does no I/O: read files, start processes and open sockets in the caller, and pass the result in.',
};

/** Packages that bundled code reaches through a module of ours, so start-up stays small. */
const STARTUP_PATHS = [
  {
    name: '@anthropic-ai/sdk',
    message: 'Use src/model/anthropic-sdk.ts: the default client bundles every API resource.',
  },
  // Loaded only when chosen, from bundles of their own (src/model/provider-sdks.ts): the AWS SDK,
  // Google's auth library and the full client would otherwise load on every start.
  ...['@anthropic-ai/bedrock-sdk', '@anthropic-ai/vertex-sdk', '@anthropic-ai/foundry-sdk'].map(
    (name) => ({
      name,
      message:
        'A provider SDK loads only when chosen, from a bundle of its own (src/model/provider-sdks.ts).',
    }),
  ),
];

/** The provider SDKs' own bundles (scripts/build.mjs): the one module that imports each SDK. */
const PROVIDER_SDK_MODULES = {
  'src/model/bedrock-sdk.ts': '@anthropic-ai/bedrock-sdk',
  'src/model/vertex-sdk.ts': '@anthropic-ai/vertex-sdk',
};

/**
 * The import rules of one folder. ESLint does not merge a rule's options across config blocks
 * (the last block that matches a file wins), so each block states the whole set: the start-up
 * rules, and `patterns` for static imports, re-exports and import() alike.
 * @param {{ patterns?: { regex: string, message: string }[], allow?: string }} options
 *   `allow`: a package of STARTUP_PATHS the files may import
 */
function restrictions({ patterns = [], allow }) {
  const paths = STARTUP_PATHS.filter((path) => path.name !== allow);
  return {
    'no-restricted-imports': ['error', { paths, patterns }],
    'no-restricted-syntax': [
      'error',
      {
        selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
        message:
          "Write `import * as z from 'zod'`: esbuild keeps every zod locale (~0.3 MiB) for a named `z` import.",
      },
      // no-restricted-imports does not see import(): the same patterns, as selectors.
      ...patterns.map(({ regex, message }) => ({
        selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`,
        message,
      })),
    ],
  };
}

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
    // What is bundled loads on every start (docs/ARCHITECTURE.md, "Start-up"); the fakes stay out.
    files: ['src/**/*.ts'],
    rules: restrictions({ patterns: [TESTKIT] }),
  },
  {
    // The demo ships the fakes: it is the one part of src/ that bundles testkit/.
    files: ['src/demo/**/*.ts'],
    rules: restrictions({}),
  },
  {
    files: ENGINE.map((layer) => `src/${layer}/**/*.ts`),
    rules: restrictions({ patterns: [TESTKIT, OUTER_LAYERS, ACTIONS] }),
  },
  ...Object.entries(PROVIDER_SDK_MODULES).map(([file, allow]) => ({
    files: [file],
    rules: restrictions({ patterns: [TESTKIT, OUTER_LAYERS, ACTIONS], allow }),
  })),
  {
    // Decisions are pure: what they need from the disk or the network arrives as a parameter.
    files: ['src/permissions/**/*.ts'],
    rules: {
      ...restrictions({ patterns: [TESTKIT, OUTER_LAYERS, ACTIONS, IO] }),
      'no-restricted-globals': [
        'error',
        ...['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource'].map((name) => ({
          name,
          message: 'src/permissions/ does no I/O: the caller fetches and passes the result in.',
        })),
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
    // Tests, benchmarks, scripts and the testkit start processes with execa (or through
    // runProcess); child_process stays inside src/process/. A type carries no process, so
    // `import type { ChildProcess }` (what an execa subprocess is) stays allowed.
    files: ['__tests__/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.{ts,js,mjs}', 'testkit/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['child_process', 'node:child_process'].map((name) => ({
            name,
            allowTypeImports: true,
            message:
              'Start processes with execa (or runProcess, src/process/run-process.ts): child_process is imported only in src/process/.',
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
